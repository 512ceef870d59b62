// Runs a helper program (an exec credential plugin) and collects its output.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace opctl::kube {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

// Runs argv[0] (searched in PATH) with the current environment plus
// `extra_env`, stdin from /dev/null, and reads stdout and stderr to the end.
// Throws opctl::ClusterError when the process cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& extra_env);

}  // namespace opctl::kube
