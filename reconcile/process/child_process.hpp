// Runs a helper program (an exec credential plugin, age, ssh-keygen, kustomize,
// a hook) and collects its output, with a timeout that kills its whole process group.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/error.hpp"

namespace opctl::process {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it; 0 when it exited
  // errno of a failed exec (exit_code is then 127, as a shell says): the
  // program is missing or not executable. 0 when it ran.
  int exec_error = 0;
  std::string out;
  std::string err;
  bool timed_out = false;        // killed (with its process group) after `timeout`
  bool output_exceeded = false;  // killed (with its group) for writing more than `max_output`
};

struct ProcessOptions {
  std::map<std::string, std::string> extra_env;
  // For the whole run, from the start until the child is reaped; then SIGKILL
  // to the child's process group.
  std::chrono::milliseconds timeout{60'000};
  // Written to the child's stdin (then closed); stdin is /dev/null when empty.
  // Any size: it is written as the child reads it, while its output is read.
  std::string input;
  // The most either stdout or stderr may hold, so a runaway child cannot
  // exhaust our memory; past it the group is killed. None: no limit. (Spelt
  // out so that a designated initializer may leave it out without g++'s
  // -Wmissing-field-initializers.)
  std::optional<std::size_t> max_output = std::nullopt;
};

// The child could not be started or followed at all (no pipe, no fork, poll
// failed): the system is short of resources. A missing program is not this:
// see exec_error.
class ProcessError : public ClusterError {
 public:
  using ClusterError::ClusterError;
};

// The child closed (or handed off) stdout and stderr but had not exited by
// the timeout (a program that daemonises, or `exec >&- 2>&-; sleep`): its
// output may look complete, but it never said how it ended, so it was killed
// with its process group and reaped.
class ProcessDidNotExitError : public ProcessError {
 public:
  using ProcessError::ProcessError;
};

// Runs argv[0] (searched in PATH unless it has a '/') with the current
// environment plus `extra_env`, stdin from `input` (or /dev/null), no signal
// blocked, in a process group of its own, and reads stdout and stderr to the
// end or until the timeout, when the whole group is killed (a plugin that
// hangs must never hang the pass). Then waits for it to exit, also no longer
// than the timeout (with a short grace when its output closed just before).
// Throws ProcessDidNotExitError when it did not exit by then, ProcessError
// when the process cannot be started or followed at all.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options);

}  // namespace opctl::process
