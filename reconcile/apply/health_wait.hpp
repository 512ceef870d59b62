// Waits until objects are healthy, polling their live state, and stops early
// when one can no longer become healthy (fail fast) or time runs out. A poll
// reads the objects of one resource in one namespace with one LIST when it
// waits for several of them there, and with a GET when for one.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "apply/health_rules.hpp"
#include "kube/api_client.hpp"
#include "model/clock.hpp"
#include "model/object.hpp"

namespace opctl::apply {

struct WaitTarget {
  model::ObjectKey key;
  kube::ResourceInfo resource;
};

struct WaitResult {
  enum class Outcome { healthy, failed, timed_out, stopped } outcome = Outcome::healthy;
  // The objects not healthy when the wait ended, with why.
  std::vector<std::pair<model::ObjectKey, HealthStatus>> unhealthy;
};

struct WaitOptions {
  std::chrono::steady_clock::time_point deadline;  // on `clock`'s steady time
  std::chrono::milliseconds poll_interval{500};
  // What the wait reads the time from and sleeps on; nullptr: the system clock.
  const Clock* clock = nullptr;
  // Called after each poll with the objects still waited for.
  std::function<void(const std::vector<std::pair<model::ObjectKey, HealthStatus>>&)> on_poll;
  // True once the wait should end early (SIGTERM/SIGINT): Outcome::stopped.
  std::function<bool()> stop_requested;
};

WaitResult wait_until_healthy(kube::ApiClient& client, const std::vector<WaitTarget>& targets,
                              const WaitOptions& options);

}  // namespace opctl::apply
