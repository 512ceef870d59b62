#include "process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
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

// SIGPIPE blocked on this thread while the child's stdin is written: a child
// that exits without reading must not kill us, and a process-wide SIG_IGN
// would race with other threads. A SIGPIPE our writes raised is taken off
// this thread's pending set before its mask is restored.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_signal_);
    sigaddset(&pipe_signal_, SIGPIPE);
    was_pending_ = pending();
    pthread_sigmask(SIG_BLOCK, &pipe_signal_, &previous_mask_);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;
  ~SigpipeBlock() {
    timespec no_wait{0, 0};
    if (!was_pending_ && pending())
      while (sigtimedwait(&pipe_signal_, nullptr, &no_wait) < 0 && errno == EINTR) {
      }
    pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  }

 private:
  static bool pending() {
    sigset_t set;
    sigpending(&set);
    return sigismember(&set, SIGPIPE) == 1;
  }

  sigset_t pipe_signal_{};
  sigset_t previous_mask_{};
  bool was_pending_ = false;
};

// The child's stdin while it is being written: the rest of the input goes in
// as the child reads it, between reads of its output.
struct PendingInput {
  int fd = -1;  // -1 once everything is written (or the child stopped reading)
  const std::string* text = nullptr;
  std::size_t written = 0;

  void close_fd() {
    if (fd >= 0) close(fd);
    fd = -1;
  }

  // Writes what the pipe takes without blocking; closes it when done or when
  // the child closed its end (EPIPE: it exits without reading, which is its business).
  void write_some() {
    while (fd >= 0 && written < text->size()) {
      ssize_t count = write(fd, text->data() + written, text->size() - written);
      if (count > 0) {
        written += std::size_t(count);
      } else if (count < 0 && errno == EINTR) {
        continue;
      } else {
        if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        break;
      }
    }
    close_fd();
  }
};

// Writes the input and reads both output pipes until they are closed, all in
// one poll loop: a child that answers before it has read all of a large input
// (or a chatty stderr) can never block us, nor we it. False when the deadline
// came first (the pipes are closed then).
bool exchange(int out_fd, int err_fd, PendingInput& input, SteadyClock::time_point deadline,
              ProcessResult& result) {
  std::array<pollfd, 3> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0},
                            pollfd{input.fd, POLLOUT, 0}};
  std::array<std::string*, 2> into{&result.out, &result.err};
  std::array<char, 4096> buffer;
  int open_count = 2;
  while (open_count > 0) {
    fds[2].fd = input.fd;  // poll ignores a negative fd
    int ready = poll(fds.data(), fds.size(), remaining_ms(deadline));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) {
      for (std::size_t i = 0; i < 2; ++i)
        if (fds[i].fd >= 0) close(fds[i].fd);
      input.close_fd();
      return false;
    }
    if (fds[2].fd >= 0 && fds[2].revents != 0) input.write_some();
    for (std::size_t i = 0; i < into.size(); ++i) {
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
  input.close_fd();  // the child closed its output but may still hold stdin: it gets EOF or EPIPE
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
  PendingInput input{in_pipe[1], &options.input, 0};
  if (in_pipe[0] >= 0) {
    close(in_pipe[0]);
    fcntl(in_pipe[1], F_SETFL, fcntl(in_pipe[1], F_GETFL) | O_NONBLOCK);
  }
  ProcessResult result;
  bool finished = false;
  {
    SigpipeBlock no_sigpipe;
    finished = exchange(out_pipe[0], err_pipe[0], input, deadline, result);
  }
  if (!finished) {
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
