#include "instance/write_deadline.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <thread>

#include "instance/instance_error.hpp"

namespace opctl::instance {
namespace {

namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;

// The postmaster's pid: the first line of postmaster.pid; 0 when there is none.
pid_t postmaster_pid(const std::string& pgdata) {
  std::ifstream in(fs::path(pgdata) / "postmaster.pid");
  long pid = 0;
  if (!(in >> pid) || pid <= 1) return 0;
  return static_cast<pid_t>(pid);
}

bool alive(pid_t pid) {
  return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

}  // namespace

std::string WriteDeadline::path(const std::string& run_dir) {
  return (fs::path(run_dir) / "write-deadline").string();
}

void WriteDeadline::set(TimePoint until) {
  std::string target = path(run_dir_);
  std::string temporary = target + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw InstanceError("cannot write " + temporary);
    out << std::chrono::duration_cast<std::chrono::nanoseconds>(until.time_since_epoch()).count() << "\n";
  }
  fs::rename(temporary, target);
}

void WriteDeadline::clear() {
  std::error_code ignored;
  fs::remove(path(run_dir_), ignored);
}

std::optional<WriteDeadline::TimePoint> WriteDeadline::read(const std::string& run_dir) {
  std::ifstream in(path(run_dir));
  long long nanoseconds = 0;
  if (!(in >> nanoseconds)) return std::nullopt;
  return TimePoint(std::chrono::duration_cast<SteadyClock::duration>(std::chrono::nanoseconds(nanoseconds)));
}

void run_watchdog(const WatchdogOptions& options) {
  // When SIGQUIT was sent to the postmaster still alive; the epoch: not sent.
  SteadyClock::time_point quit_sent{};
  while (!options.stop || !options.stop()) {
    std::this_thread::sleep_for(options.poll);
    auto deadline = WriteDeadline::read(options.run_dir);
    auto now = SteadyClock::now();
    if (!deadline || now <= *deadline) {
      quit_sent = {};
      continue;
    }
    pid_t pid = postmaster_pid(options.pgdata);
    if (!alive(pid)) {
      quit_sent = {};
      continue;
    }
    if (quit_sent == SteadyClock::time_point{}) {
      // Immediate shutdown: every backend quits now, no commit completes after this.
      kill(pid, SIGQUIT);
      quit_sent = now;
      if (options.log)
        options.log(
            fmt::format("the primary's write deadline passed {} ms ago without a Lease renewal: "
                        "PostgreSQL (pid {}) stopped immediately",
                        std::chrono::duration_cast<std::chrono::milliseconds>(now - *deadline).count(), pid));
    } else if (now - quit_sent > options.kill_after) {
      kill(pid, SIGKILL);
      if (options.log) options.log(fmt::format("PostgreSQL (pid {}) ignored SIGQUIT: killed", pid));
      quit_sent = now;
    }
  }
}

}  // namespace opctl::instance
