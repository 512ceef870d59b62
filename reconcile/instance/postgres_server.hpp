// The postgres server process, a direct child of the instance manager (PID 1
// of the container), so its exit is seen at once and its signals are ours to
// send: SIGTERM is PostgreSQL's smart shutdown, SIGINT fast, SIGQUIT immediate.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace opctl::instance {

enum class ShutdownMode { smart, fast, immediate };

class PostgresServer {
 public:
  PostgresServer() = default;
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;
  ~PostgresServer();

  // Starts `command` (argv; argv[0] searched in PATH), its output on ours.
  void start(const std::vector<std::string>& command);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Called with every child the manager reaped: true when it was the server
  // (which is then no longer running; `exit_description` says how it ended).
  bool reaped(pid_t pid, int wait_status);
  // Notices an exit without blocking (the same as reaped() for this server's pid).
  void poll();
  // It ran and exited although nobody asked it to stop.
  bool exited_unexpectedly() const { return pid_ <= 0 && !exit_description_.empty() && !stop_requested_; }
  const std::string& exit_description() const { return exit_description_; }
  // The exit was expected after all (the watchdog fenced it): no longer "unexpected".
  void forget_exit() { exit_description_.clear(); }

  void signal(ShutdownMode mode) const;
  // Asks for `mode`, waits up to `timeout` for the exit; true when it exited.
  bool stop(ShutdownMode mode, std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  std::string exit_description_;
  mutable bool stop_requested_ = false;
};

// Reaps every exited child without blocking (PID 1 inherits orphans too) and
// tells `server` about each.
void reap_children(PostgresServer& server);

}  // namespace opctl::instance
