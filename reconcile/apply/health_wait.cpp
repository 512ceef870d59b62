#include "apply/health_wait.hpp"

#include <thread>

namespace opctl::apply {

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
      HealthStatus health = responses[i].ok() ? assess_health(responses[i].object)
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
