// Runs a helper program (an exec credential plugin, age, ssh-keygen) and
// collects its output, with a timeout that kills its whole process group.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace opctl::process {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
  bool timed_out = false;  // killed (with its process group) after `timeout`
};

struct ProcessOptions {
  std::map<std::string, std::string> extra_env;
  std::chrono::milliseconds timeout{60'000};  // then SIGKILL to the child's process group
  // Written to the child's stdin (then closed); stdin is /dev/null when empty.
  // Any size: it is written as the child reads it, while its output is read.
  std::string input;
};

// Runs argv[0] (searched in PATH) with the current environment plus
// `extra_env`, stdin from `input` (or /dev/null), in a process group of its own, and reads
// stdout and stderr to the end or until the timeout, when the whole group is
// killed (a plugin that hangs must never hang the pass). Throws
// opctl::ClusterError when the process cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options);

}  // namespace opctl::process
