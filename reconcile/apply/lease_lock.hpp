// The Lease that keeps two runs of the same config from reconciling at once
// (coordination.k8s.io/v1, `opctl-<config name>`). Held for the whole pass
// and renewed in the background; an expired lease is taken over.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kube/http_transport.hpp"
#include "model/object.hpp"

namespace opctl::apply {

struct LeaseSettings {
  std::string name;            // opctl-<config name>
  std::string namespace_name;  // the config's namespace
  std::string holder;          // host (or pod) "/" pid
  std::chrono::seconds duration{60};
};

// "<hostname>/<pid>": HOSTNAME is the pod's name in a cluster.
std::string default_lease_holder();

class LeaseLock {
 public:
  // Takes the lease, or throws opctl::Error(lock_held) naming the holder when
  // another live run has it. `transport` is used only by this lock (and its
  // renewal thread).
  static std::unique_ptr<LeaseLock> acquire(std::unique_ptr<kube::HttpTransport> transport, LeaseSettings settings);

  // Stops renewing and releases the lease so the next run need not wait.
  ~LeaseLock();
  LeaseLock(const LeaseLock&) = delete;
  LeaseLock& operator=(const LeaseLock&) = delete;

  // False once a renewal found the lease taken by someone else.
  bool held() const { return held_; }

 private:
  LeaseLock(std::unique_ptr<kube::HttpTransport> transport, LeaseSettings settings);
  void take();
  void renew_until_stopped();
  bool write(model::Json lease);
  std::string path() const;

  std::unique_ptr<kube::HttpTransport> transport_;
  LeaseSettings settings_;
  model::Json current_;
  std::atomic<bool> held_{false};
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread renewer_;
};

// Kubernetes MicroTime ("2026-11-29T16:00:00.123456Z") <-> time points.
std::string format_micro_time(std::chrono::system_clock::time_point time);
std::optional<std::chrono::system_clock::time_point> parse_micro_time(const std::string& text);

}  // namespace opctl::apply
