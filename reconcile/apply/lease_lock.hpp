// The Lease that keeps two runs of the same config from reconciling at once
// (coordination.k8s.io/v1, `opctl-<config name>`). Held for the whole pass:
// renewed every third of its duration (in the background, and before every
// batch of writes through ensure_held), always with the resourceVersion it
// last wrote, so two runs can never both believe they hold it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kube/api_error.hpp"
#include "kube/http_transport.hpp"
#include "model/clock.hpp"
#include "model/error.hpp"
#include "model/object.hpp"

namespace opctl::apply {

struct LeaseSettings {
  std::string name;            // opctl-<config name>
  std::string namespace_name;  // the config's namespace
  std::string holder;          // host (or pod) "/" pid
  std::chrono::seconds duration{60};
  bool renew_in_background = true;  // off in unit tests, which call ensure_held by hand
};

// The pass can no longer prove it holds the Lease: it must stop writing.
class LeaseLostError : public Error {
 public:
  explicit LeaseLostError(const std::string& message) : Error(ErrorCategory::lock_held, message) {}
};

// "<hostname>/<pid>": HOSTNAME is the pod's name in a cluster.
std::string default_lease_holder();

class LeaseLock {
 public:
  // Takes the lease, or throws opctl::Error(lock_held) naming the holder when
  // another live run has it. `transport` is used only by this lock (and its
  // renewal thread); `clock` defaults to the system clocks.
  static std::unique_ptr<LeaseLock> acquire(std::unique_ptr<kube::HttpTransport> transport,
                                            LeaseSettings settings, std::unique_ptr<Clock> clock = nullptr);

  // Stops renewing and releases the lease (when still held) so the next run
  // need not wait.
  ~LeaseLock();
  LeaseLock(const LeaseLock&) = delete;
  LeaseLock& operator=(const LeaseLock&) = delete;

  // Called before every batch of writes: renews when a third of the duration
  // has passed since the last renewal, and throws LeaseLostError when the
  // lease was taken by another run or expired (by this run's clock) without
  // a successful renewal. Once lost, it throws every time.
  void ensure_held();

  // False once the lease is known lost.
  bool held() const { return held_; }

 private:
  LeaseLock(std::unique_ptr<kube::HttpTransport> transport, LeaseSettings settings,
            std::unique_ptr<Clock> clock);
  void take();
  void renew();
  void after_conflict(const std::string& written_renew_time);
  void renew_until_stopped();
  kube::ApiStatus put(const model::Json& lease);
  std::string path() const;
  std::string where() const;

  std::unique_ptr<kube::HttpTransport> transport_;
  LeaseSettings settings_;
  std::unique_ptr<Clock> clock_;
  model::Json current_;  // the Lease as last written (its resourceVersion included)
  std::chrono::steady_clock::time_point renewed_at_;
  std::string last_error_;  // of the last failed renewal, for the message
  std::string lost_;        // why the lease is lost; empty while held
  std::atomic<bool> held_{false};
  std::mutex mutex_;  // one request at a time on transport_, and current_
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread renewer_;
};

// Kubernetes MicroTime ("2026-11-29T16:00:00.123456Z") <-> time points.
std::string format_micro_time(std::chrono::system_clock::time_point time);
std::optional<std::chrono::system_clock::time_point> parse_micro_time(const std::string& text);

}  // namespace opctl::apply
