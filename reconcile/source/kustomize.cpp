#include "source/kustomize.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "model/error.hpp"
#include "process/child_process.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void kustomize_failed(const std::string& display, const std::string& why) {
  throw InvalidInputError({Problem{display, 0, "", why}});
}

// The lines kubectl printed, joined into one: "Error: ..." first.
std::string summarise_stderr(const std::string& text) {
  std::istringstream lines(text);
  std::string summary;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) summary += (summary.empty() ? "" : "; ") + line;
  return summary.empty() ? "no message" : summary;
}

// Remote bases are cloned by kustomize itself, so a render may take long;
// but a kubectl that hangs (a credential prompt, a dead remote) must not
// hang the pass forever.
constexpr std::chrono::minutes k_render_timeout{10};

// Runs the program found on PATH by its path, so the one found is the one run.
process::ProcessResult run(const fs::path& program, std::vector<std::string> arguments,
                           const std::string& display) {
  arguments[0] = program.string();
  process::ProcessResult result;
  try {
    result = process::run_process(arguments, {.extra_env = {}, .timeout = k_render_timeout, .input = ""});
  } catch (const process::ProcessError& error) {
    kustomize_failed(display, error.what());
  }
  if (result.exec_error != 0)
    kustomize_failed(display, "cannot run " + program.string() + ": " + std::strerror(result.exec_error));
  return result;
}

}  // namespace

bool is_kustomization_file_name(std::string_view name) {
  return name == "kustomization.yaml" || name == "kustomization.yml" || name == "Kustomization";
}

std::optional<fs::path> find_program(std::string_view program, std::string_view search_path) {
  std::size_t start = 0;
  while (start <= search_path.size()) {
    auto end = search_path.find(':', start);
    if (end == std::string_view::npos) end = search_path.size();
    fs::path directory(search_path.substr(start, end - start));
    if (directory.empty()) directory = ".";
    fs::path candidate = directory / program;
    std::error_code error;
    if (fs::is_regular_file(candidate, error) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

std::string render_kustomization(const fs::path& directory, const std::string& display) {
  const char* path = std::getenv("PATH");
  std::string search_path = path ? path : "/usr/local/bin:/usr/bin:/bin";
  // kubectl first (what a laptop has); the standalone kustomize where there
  // is no kubectl (opctl's image ships kustomize, not kubectl).
  std::vector<std::string> command;
  std::optional<fs::path> program = find_program("kubectl", search_path);
  if (program) {
    command = {"kubectl", "kustomize", directory.string()};
  } else if ((program = find_program("kustomize", search_path))) {
    command = {"kustomize", "build", directory.string()};
  } else {
    kustomize_failed(display,
                     "this directory has a kustomization, and rendering it needs kubectl or kustomize on "
                     "PATH (opctl runs \"kubectl kustomize\", else \"kustomize build\"); install one of them "
                     "or commit the rendered manifests");
  }
  process::ProcessResult result = run(*program, command, display);
  if (result.timed_out)
    kustomize_failed(display, command[0] + " " + command[1] + " did not finish within " +
                                  std::to_string(k_render_timeout.count()) + " minutes and was killed");
  if (result.exit_code != 0) {
    // Name the directory as the user knows it, not where it was materialised.
    // The search goes on after each replacement: a plain directory's display
    // can be the directory itself, or contain it.
    std::string message = summarise_stderr(result.err);
    for (auto at = message.find(directory.string()); at != std::string::npos;
         at = message.find(directory.string(), at + display.size()))
      message.replace(at, directory.string().size(), display);
    kustomize_failed(display, command[0] + " " + command[1] + " failed: " + message);
  }
  return result.out;
}

}  // namespace opctl::source
