// How a hook kind's hook is called: the request JSON goes in, the response
// text comes out. A command gets it on stdin and answers on stdout; a URL
// gets it as an HTTP POST. Failures (cannot start, timeout — the process is
// killed —, non-zero exit, HTTP error) throw HookError with a message for the
// resource's Degraded condition.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "model/error.hpp"

namespace opctl::kinds::hook {

class HookError : public Error {
 public:
  explicit HookError(const std::string& message) : Error(ErrorCategory::cluster, message) {}
};

class HookTransport {
 public:
  virtual ~HookTransport() = default;
  virtual std::string call(const std::string& request) = 0;
};

// Runs argv (argv[0] searched in PATH) in its own process group, which is
// killed (SIGKILL) when `timeout` runs out.
std::unique_ptr<HookTransport> command_transport(std::vector<std::string> argv,
                                                 std::chrono::milliseconds timeout);
std::unique_ptr<HookTransport> http_transport(std::string url, std::chrono::milliseconds timeout);

}  // namespace opctl::kinds::hook
