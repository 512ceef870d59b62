// The moment until which this instance's PostgreSQL may accept writes, in a
// file of the run directory that the watchdog reads (`opctl instance
// watchdog`, a process of its own, so a manager that hangs or is stopped
// cannot keep a primary writable): the lease keeper moves it forward at every
// renewal, to the renewal's send time plus the renew deadline. Once it has
// passed, the watchdog stops PostgreSQL immediately (SIGQUIT to the
// postmaster, SIGKILL if that does not end it). Times are CLOCK_MONOTONIC,
// which every process of the machine shares; no file, no deadline (a replica).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace opctl::instance {

class WriteDeadline {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  explicit WriteDeadline(std::string run_dir) : run_dir_(std::move(run_dir)) {}
  virtual ~WriteDeadline() = default;
  virtual void set(TimePoint until);
  virtual void clear();
  static std::optional<TimePoint> read(const std::string& run_dir);
  static std::string path(const std::string& run_dir);

 private:
  std::string run_dir_;
};

struct WatchdogOptions {
  std::string run_dir;
  std::string pgdata;
  std::chrono::milliseconds poll{100};
  std::chrono::milliseconds kill_after{2000};  // SIGKILL when SIGQUIT has not ended it by then
  std::function<void(const std::string&)> log;
  std::function<bool()> stop;  // checked every poll; true ends the loop
};

// The watchdog's loop: polls the deadline, stops the postmaster named in
// PGDATA/postmaster.pid once it has passed. Returns when `stop` says so.
void run_watchdog(const WatchdogOptions& options);

}  // namespace opctl::instance
