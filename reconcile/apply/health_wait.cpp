#include "apply/health_wait.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "apply/workload_pods.hpp"
#include "kube/api_error.hpp"

namespace opctl::apply {
namespace {

// Objects of one resource in one namespace: what one LIST reads.
using ReadGroupKey = std::pair<model::GroupVersionKind, std::string>;

// A LIST also carries the namespace's other objects of the resource; when
// they outnumber the awaited ones by more than this, GETs move less data
// than LISTs (a wait on two ConfigMaps in a namespace of hundreds).
constexpr std::size_t k_max_listed_per_awaited = 4;

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

// The API server's own words for a missing object, so a LIST that lacks it
// reads like the GET's 404: `deployments.apps "web" not found`.
kube::ApiStatus not_found(const WaitTarget& target) {
  const auto& resource = target.resource;
  std::string plural =
      resource.gvk.group.empty() ? resource.resource : resource.resource + "." + resource.gvk.group;
  return {404, kube::ApiReason::not_found, fmt::format("{} \"{}\" not found", plural, target.key.name), {}};
}

// Reads the live objects of the targets a wait still polls, and remembers
// across polls which groups must be read by GET.
class LiveReader {
 public:
  explicit LiveReader(kube::ApiClient& client) : client_(client) {}

  std::map<const WaitTarget*, kube::ApiResult> read(const std::vector<const WaitTarget*>& pending) {
    std::map<ReadGroupKey, std::vector<const WaitTarget*>> groups;
    for (const auto* target : pending)
      groups[{target->resource.gvk, target->key.namespace_name}].push_back(target);
    std::map<const WaitTarget*, kube::ApiResult> live;
    std::vector<const WaitTarget*> by_get;
    std::vector<kube::ListTarget> lists;
    std::vector<std::pair<const ReadGroupKey*, const std::vector<const WaitTarget*>*>> listed_groups;
    for (const auto& [key, members] : groups) {
      bool one_get_is_cheaper = members.size() == 1 || read_by_get_.contains(key);
      if (one_get_is_cheaper) {
        by_get.insert(by_get.end(), members.begin(), members.end());
        continue;
      }
      lists.push_back({members.front()->resource, key.second, {}, ""});
      listed_groups.emplace_back(&key, &members);
    }
    auto outcomes = client_.list_all(lists);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      const auto& [key, members] = listed_groups[i];
      if (!take_group(*key, *members, outcomes[i], live))
        by_get.insert(by_get.end(), members->begin(), members->end());
    }
    get_each(by_get, live);
    return live;
  }

 private:
  // Takes one group's LIST; false when it was forbidden (RBAC may grant get
  // without list), so the group is read by GET from now on.
  bool take_group(const ReadGroupKey& key, const std::vector<const WaitTarget*>& members,
                  kube::ListOutcome& outcome, std::map<const WaitTarget*, kube::ApiResult>& live) {
    if (!outcome.ok()) {
      if (outcome.status.reason == kube::ApiReason::forbidden) {
        read_by_get_.insert(key);
        return false;
      }
      // As a failed GET: the objects stay progressing with the error, and the next poll tries again.
      for (const auto* target : members)
        live[target] = {outcome.status, {}};
      return true;
    }
    auto& listed = outcome.items;
    if (listed.size() > k_max_listed_per_awaited * members.size()) read_by_get_.insert(key);
    std::map<std::string, const WaitTarget*> by_name;
    for (const auto* target : members)
      by_name[target->key.name] = target;
    for (auto& item : listed) {
      auto metadata = item.find("metadata");
      if (metadata == item.end() || !metadata->is_object()) continue;
      if (metadata->value("namespace", "") != key.second) continue;  // "" lists every namespace
      auto found = by_name.find(metadata->value("name", ""));
      if (found != by_name.end()) live[found->second] = {{}, std::move(item)};
    }
    for (const auto* target : members)
      if (!live.contains(target)) live[target] = {not_found(*target), {}};
    return true;
  }

  void get_each(const std::vector<const WaitTarget*>& targets,
                std::map<const WaitTarget*, kube::ApiResult>& live) {
    std::vector<kube::HttpRequest> requests;
    for (const auto* target : targets)
      requests.push_back(client_.get_request(target->resource, target->key.namespace_name, target->key.name));
    auto results = client_.execute(requests);
    for (std::size_t i = 0; i < targets.size(); ++i)
      live[targets[i]] = std::move(results[i]);
  }

  kube::ApiClient& client_;
  std::set<ReadGroupKey> read_by_get_;
};

HealthStatus health_of(kube::ApiClient& client, const kube::ApiResult& live) {
  if (!live.ok()) return {HealthState::progressing, live.status.message};
  return with_pod_health(client, live.object, assess_health(live.object));
}

}  // namespace

WaitResult wait_until_healthy(kube::ApiClient& client, const std::vector<WaitTarget>& targets,
                              const WaitOptions& options) {
  SystemClock system_clock;
  const Clock& clock = options.clock != nullptr ? *options.clock : system_clock;
  LiveReader reader(client);
  std::vector<const WaitTarget*> pending;
  for (const auto& target : targets)
    pending.push_back(&target);
  WaitResult result;
  while (true) {
    auto live = reader.read(pending);
    std::vector<const WaitTarget*> still;
    result.unhealthy.clear();
    for (const auto* target : pending) {
      HealthStatus health = health_of(client, live.at(target));
      if (health.state == HealthState::healthy) continue;
      still.push_back(target);
      result.unhealthy.emplace_back(target->key, health);
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
    if (clock.steady_now() + options.poll_interval >= options.deadline) {
      result.outcome = WaitResult::Outcome::timed_out;
      return result;
    }
    clock.sleep_for(options.poll_interval);
  }
}

}  // namespace opctl::apply
