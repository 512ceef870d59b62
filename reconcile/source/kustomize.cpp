#include "source/kustomize.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "model/error.hpp"

extern char** environ;

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void kustomize_failed(const std::string& display, const std::string& why) {
  throw InvalidInputError({Problem{display, 0, "", why}});
}

// A file that disappears with its owner, for kubectl's stderr.
struct TemporaryFile {
  std::string path = (fs::temp_directory_path() / "opctl-kustomize-XXXXXX").string();
  int fd = ::mkstemp(path.data());
  ~TemporaryFile() {
    if (fd >= 0) ::close(fd), ::unlink(path.c_str());
  }
};

std::string read_fd(int fd) {
  std::string out;
  std::array<char, 65536> buffer{};
  while (true) {
    ssize_t count = ::read(fd, buffer.data(), buffer.size());
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    out.append(buffer.data(), static_cast<std::size_t>(count));
  }
  return out;
}

// The lines kubectl printed, joined into one: "Error: ..." first.
std::string summarise_stderr(const std::string& text) {
  std::istringstream lines(text);
  std::string summary;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) summary += (summary.empty() ? "" : "; ") + line;
  return summary.empty() ? "no message" : summary;
}

struct ProcessResult {
  int status = 0;
  std::string out;
  std::string err;
};

ProcessResult run(const fs::path& program, const std::vector<std::string>& arguments,
                  const std::string& display) {
  TemporaryFile err;
  std::array<int, 2> pipe_fds{};
  if (err.fd < 0 || ::pipe2(pipe_fds.data(), O_CLOEXEC) < 0)
    kustomize_failed(display, "cannot run " + program.string() + ": " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd, STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& argument : arguments)
    argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int spawn_error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawn_error != 0) {
    ::close(pipe_fds[0]);
    kustomize_failed(display, "cannot run " + program.string() + ": " + std::strerror(spawn_error));
  }
  ProcessResult result;
  result.out = read_fd(pipe_fds[0]);
  ::close(pipe_fds[0]);
  while (::waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
  }
  ::lseek(err.fd, 0, SEEK_SET);
  result.err = read_fd(err.fd);
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
  ProcessResult result = run(*program, command, display);
  if (!WIFEXITED(result.status) || WEXITSTATUS(result.status) != 0) {
    // Name the directory as the user knows it, not where it was materialised.
    std::string message = summarise_stderr(result.err);
    for (auto at = message.find(directory.string()); at != std::string::npos;
         at = message.find(directory.string()))
      message.replace(at, directory.string().size(), display);
    kustomize_failed(display, command[0] + " " + command[1] + " failed: " + message);
  }
  return result.out;
}

}  // namespace opctl::source
