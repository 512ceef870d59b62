#include "process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>

#include "model/error.hpp"

extern char** environ;

namespace opctl::process {
namespace {

// The child's environment, built before fork: setenv after fork is not
// async-signal-safe in a program with threads.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra_env) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    if (!extra_env.contains(text.substr(0, text.find('=')))) entries.push_back(std::move(text));
  }
  for (const auto& [name, value] : extra_env)
    entries.push_back(name + "=" + value);
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& text : strings)
    out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

using SteadyClock = std::chrono::steady_clock;

int remaining_ms(SteadyClock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1'000'000));
}

// Reads both pipes until both are closed, so a chatty stderr cannot block
// stdout; false when the deadline came first (the pipes are closed then).
bool drain(int out_fd, int err_fd, SteadyClock::time_point deadline, ProcessResult& result) {
  std::array<pollfd, 2> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  std::array<std::string*, 2> into{&result.out, &result.err};
  std::array<char, 4096> buffer;
  int open_count = 2;
  while (open_count > 0) {
    int ready = poll(fds.data(), fds.size(), remaining_ms(deadline));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) {
      for (auto& fd : fds)
        if (fd.fd >= 0) close(fd.fd);
      return false;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t count = read(fds[i].fd, buffer.data(), buffer.size());
      if (count > 0) {
        into[i]->append(buffer.data(), std::size_t(count));
      } else if (count == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  return true;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  auto deadline = SteadyClock::now() + options.timeout;
  std::vector<std::string> args_text = argv;
  std::vector<std::string> env_text = child_environment(options.extra_env);
  std::vector<char*> args = pointers(args_text);
  std::vector<char*> env = pointers(env_text);
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw ClusterError("exec plugin: cannot create a pipe");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw ClusterError("exec plugin: cannot create a pipe");
  }
  int in_pipe[2] = {-1, -1};
  if (!options.input.empty() && pipe2(in_pipe, O_CLOEXEC) != 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
      close(fd);
    throw ClusterError("exec plugin: cannot create a pipe");
  }
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], in_pipe[0], in_pipe[1]})
      if (fd >= 0) close(fd);
    throw ClusterError("exec plugin: cannot fork");
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a timeout kills what it started too
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (in_pipe[0] >= 0) {
      dup2(in_pipe[0], 0);
    } else if (int null_fd = ::open("/dev/null", O_RDONLY); null_fd >= 0) {
      dup2(null_fd, 0);
    }
    execvpe(args[0], args.data(), env.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  setpgid(pid, pid);  // also here: no race with the child's own call
  if (in_pipe[0] >= 0) {
    close(in_pipe[0]);
    // A child that exits without reading must not kill us with SIGPIPE.
    struct sigaction ignore {
    }, previous{};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &previous);
    std::size_t written = 0;
    while (written < options.input.size()) {
      ssize_t count = write(in_pipe[1], options.input.data() + written, options.input.size() - written);
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) break;
      written += std::size_t(count);
    }
    sigaction(SIGPIPE, &previous, nullptr);
    close(in_pipe[1]);
  }
  ProcessResult result;
  if (!drain(out_pipe[0], err_pipe[0], deadline, result)) {
    result.timed_out = true;
    kill(-pid, SIGKILL);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace opctl::process
