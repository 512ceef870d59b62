// The command transport: the request on the hook's stdin, its answer from
// stdout, through the one child-process helper, so a hook that never reads
// its input, never exits or never stops writing cannot block the pass.
#include <fmt/format.h>

#include <cstring>

#include "config/run_config.hpp"
#include "kinds/hook/hook_transport.hpp"
#include "process/child_process.hpp"

namespace opctl::kinds::hook {
namespace {

// An answer is a few children; more than this is a hook gone wrong, and
// holding it would only grow our memory.
constexpr std::size_t k_max_output = 16 * 1024 * 1024;

std::string tail(const std::string& text) {
  std::string trimmed = text.size() > 2000 ? "..." + text.substr(text.size() - 2000) : text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' '))
    trimmed.pop_back();
  return trimmed;
}

class CommandTransport : public HookTransport {
 public:
  CommandTransport(std::vector<std::string> argv, std::chrono::milliseconds timeout)
      : argv_(std::move(argv)), timeout_(timeout) {}

  std::string call(const std::string& request) override {
    if (argv_.empty()) throw HookError("the hook command is empty");
    process::ProcessResult result = run(request);
    const std::string& name = argv_[0];
    if (result.exec_error != 0)
      throw HookError(fmt::format("cannot run the hook {}: {}", name, std::strerror(result.exec_error)));
    if (result.output_exceeded)
      throw HookError(fmt::format("the hook {} wrote more than {} bytes", name, k_max_output));
    if (result.timed_out)
      throw HookError(fmt::format("the hook {} timed out after {} and was killed", name,
                                  config::format_duration(timeout_)));
    if (result.signal != 0)
      throw HookError(
          fmt::format("the hook {} was killed by signal {}: {}", name, result.signal, tail(result.err)));
    if (result.exit_code != 0)
      throw HookError(
          fmt::format("the hook {} exited with status {}: {}", name, result.exit_code, tail(result.err)));
    return result.out;
  }

 private:
  // A failure to start it at all (no pipe, no fork) is the hook's failure
  // too: the resource says so in its Degraded condition.
  process::ProcessResult run(const std::string& request) const {
    try {
      return process::run_process(
          argv_, {.extra_env = {}, .timeout = timeout_, .input = request, .max_output = k_max_output});
    } catch (const process::ProcessError& error) {
      throw HookError(error.what());
    }
  }

  std::vector<std::string> argv_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

std::unique_ptr<HookTransport> command_transport(std::vector<std::string> argv,
                                                 std::chrono::milliseconds timeout) {
  return std::make_unique<CommandTransport>(std::move(argv), timeout);
}

}  // namespace opctl::kinds::hook
