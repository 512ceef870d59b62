#include "apply/health_wait.hpp"

#include <thread>

#include "apply/workload_pods.hpp"
#include "kube/api_error.hpp"

namespace opctl::apply {
namespace {

std::vector<model::Json> list_matching(kube::ApiClient& client, const model::GroupVersionKind& gvk,
                                       const std::string& namespace_name, const std::string& selector) {
  auto resource = client.mapper().find(gvk);
  if (!resource) return {};
  kube::ListOptions options;
  options.label_selector = selector;
  return client.list(*resource, namespace_name, options);
}

// A workload still progressing fails now, not at the timeout, when a Pod of
// its current revision cannot run. Reading the Pods is best effort: a
// failed read leaves the workload's own health as it was.
HealthStatus with_pod_health(kube::ApiClient& client, const model::Json& live, HealthStatus health) {
  if (health.state != HealthState::progressing) return health;
  auto selector = workload_pod_selector(live);
  if (!selector) return health;
  std::string namespace_name = live["metadata"].value("namespace", "");
  try {
    auto pods = list_matching(client, {"", "v1", "Pod"}, namespace_name, *selector);
    std::vector<model::Json> replica_sets;
    if (workload_needs_replica_sets(live))
      replica_sets = list_matching(client, {"apps", "v1", "ReplicaSet"}, namespace_name, *selector);
    HealthStatus from_pods = assess_workload_pods(live, replica_sets, pods);
    return from_pods.state == HealthState::failed ? from_pods : health;
  } catch (const kube::ApiError&) {
    return health;
  }
}

}  // namespace

WaitResult wait_until_healthy(kube::ApiClient& client, const std::vector<WaitTarget>& targets,
                              const WaitOptions& options) {
  std::vector<const WaitTarget*> pending;
  for (const auto& target : targets) pending.push_back(&target);
  WaitResult result;
  while (true) {
    std::vector<kube::HttpRequest> requests;
    for (const auto* target : pending)
      requests.push_back(client.get_request(target->resource, target->key.namespace_name, target->key.name));
    auto responses = client.execute(requests);
    std::vector<const WaitTarget*> still;
    result.unhealthy.clear();
    for (std::size_t i = 0; i < pending.size(); ++i) {
      HealthStatus health = responses[i].ok()
                                ? with_pod_health(client, responses[i].object, assess_health(responses[i].object))
                                : HealthStatus{HealthState::progressing, responses[i].status.message};
      if (health.state == HealthState::healthy) continue;
      still.push_back(pending[i]);
      result.unhealthy.emplace_back(pending[i]->key, health);
    }
    pending = std::move(still);
    if (options.on_poll) options.on_poll(result.unhealthy);
    if (pending.empty()) {
      result.outcome = WaitResult::Outcome::healthy;
      return result;
    }
    for (const auto& [key, health] : result.unhealthy)
      if (health.state == HealthState::failed) {
        result.outcome = WaitResult::Outcome::failed;
        return result;
      }
    if (options.stop_requested && options.stop_requested()) {
      result.outcome = WaitResult::Outcome::stopped;
      return result;
    }
    if (std::chrono::steady_clock::now() + options.poll_interval >= options.deadline) {
      result.outcome = WaitResult::Outcome::timed_out;
      return result;
    }
    std::this_thread::sleep_for(options.poll_interval);
  }
}

}  // namespace opctl::apply
