#include "process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>

extern char** environ;

namespace opctl::process {
namespace {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

Pipe make_pipe(const std::string& program) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw ProcessError("cannot start " + program + ": cannot create a pipe: " + std::strerror(errno));
  return {Fd(fds[0]), Fd(fds[1])};
}

// The child's side of every pipe; `status` carries errno back when exec fails
// (it closes by itself, O_CLOEXEC, when exec succeeds).
struct ChildPipes {
  Pipe out, err, status;
  Pipe in;  // both ends -1 when there is no input: stdin is /dev/null then
};

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

// In the forked child: async-signal-safe calls only, until exec. The signal
// mask is cleared because exec keeps it: a signal blocked on the calling
// thread (SIGPIPE, SIGTERM) would otherwise stay blocked in the program.
[[noreturn]] void exec_child(char* const* args, char* const* env, const ChildPipes& pipes) {
  setpgid(0, 0);  // its own group, so a timeout kills what it started too
  dup2(pipes.out.write.get(), STDOUT_FILENO);
  dup2(pipes.err.write.get(), STDERR_FILENO);
  if (pipes.in.read.get() >= 0) {
    dup2(pipes.in.read.get(), STDIN_FILENO);
  } else if (int null_fd = ::open("/dev/null", O_RDONLY); null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvpe(args[0], args, env);
  int code = errno;
  ssize_t ignored = write(pipes.status.write.get(), &code, sizeof code);
  (void)ignored;
  _exit(127);
}

// The started child, killed with its group and reaped if we leave early (an
// exception), so no stray process or zombie outlives a failed call.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ <= 0) return;
    kill_group();
    wait();
  }
  void kill_group() const { kill(-pid_, SIGKILL); }
  int wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }
  // Its wait status once it has exited, or nothing if it is still running at
  // `deadline`. Polled, with a pause that grows to 50 ms: a child normally
  // exits right after closing its output, so the first looks find it, and
  // polling needs no SIGCHLD handler (process-wide) nor a pidfd (Linux 5.3).
  std::optional<int> wait_until(std::chrono::steady_clock::time_point deadline) {
    std::chrono::milliseconds pause{1};
    while (true) {
      int status = 0;
      pid_t reaped = waitpid(pid_, &status, WNOHANG);
      if (reaped < 0 && errno == EINTR) continue;
      if (reaped != 0) {  // exited, or (ECHILD) reaped by someone else: as wait() reports it
        pid_ = -1;
        return reaped < 0 ? 0 : status;
      }
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
  }

 private:
  pid_t pid_;
};

using SteadyClock = std::chrono::steady_clock;

// How long a child whose output closed just before its deadline still has to
// exit: closing its output is normally the last thing a program does, and a
// program done in time must not be reported as one that kept running.
constexpr std::chrono::milliseconds k_exit_grace{200};

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
  Fd fd;  // -1 once everything is written (or the child stopped reading)
  const std::string* text = nullptr;
  std::size_t written = 0;

  // Writes what the pipe takes without blocking; closes it when done or when
  // the child closed its end (EPIPE: it exits without reading, which is its business).
  void write_some() {
    while (fd.get() >= 0 && written < text->size()) {
      ssize_t count = write(fd.get(), text->data() + written, text->size() - written);
      if (count > 0) {
        written += std::size_t(count);
      } else if (count < 0 && errno == EINTR) {
        continue;
      } else {
        if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        break;
      }
    }
    fd.reset();
  }
};

enum class Ending { finished, timed_out, output_exceeded };

// Writes the input and reads both output pipes until they are closed, all in
// one poll loop: a child that answers before it has read all of a large input
// (or a chatty stderr) can never block us, nor we it. The deadline is checked
// on every round, not only when poll times out: a child that never stops
// writing would otherwise never time out.
Ending exchange(std::array<Fd*, 2> from, PendingInput& input, SteadyClock::time_point deadline,
                const ProcessOptions& options, const std::string& program, ProcessResult& result) {
  std::array<std::string*, 2> into{&result.out, &result.err};
  std::array<char, 65536> buffer;
  while (from[0]->get() >= 0 || from[1]->get() >= 0) {
    int left = remaining_ms(deadline);
    if (left == 0) return Ending::timed_out;
    std::array<pollfd, 3> fds{pollfd{from[0]->get(), POLLIN, 0}, pollfd{from[1]->get(), POLLIN, 0},
                              pollfd{input.fd.get(), POLLOUT, 0}};  // poll ignores a negative fd
    int ready = poll(fds.data(), fds.size(), left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw ProcessError("cannot follow " + program + ": poll: " + std::strerror(errno));
    if (fds[2].fd >= 0 && fds[2].revents != 0) input.write_some();
    for (std::size_t i = 0; i < into.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t count = read(fds[i].fd, buffer.data(), buffer.size());
      if (count > 0) {
        into[i]->append(buffer.data(), std::size_t(count));
        if (options.max_output && into[i]->size() > *options.max_output) return Ending::output_exceeded;
      } else if (count == 0 || errno != EINTR) {
        from[i]->reset();
      }
    }
  }
  return Ending::finished;
}

std::string readable(std::chrono::milliseconds duration) {
  auto count = duration.count();
  return count % 1000 == 0 ? std::to_string(count / 1000) + "s" : std::to_string(count) + "ms";
}

// The wait status of a child whose output has closed. A waitpid without a
// deadline would hang the pass for as long as such a child runs.
int wait_for_exit(Child& child, SteadyClock::time_point deadline, const std::string& program,
                  std::chrono::milliseconds timeout) {
  if (auto status = child.wait_until(std::max(deadline, SteadyClock::now() + k_exit_grace))) return *status;
  child.kill_group();
  child.wait();
  throw ProcessDidNotExitError(program + " closed its output but did not exit within its timeout of " +
                               readable(timeout) + "; killed it and its process group");
}

void record_status(int status, ProcessResult& result) {
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

// The errno the child sent when exec failed; read once the child is reaped,
// so whatever it wrote is there (non-blocking: nothing there means exec ran).
int exec_error(const Fd& status) {
  fcntl(status.get(), F_SETFL, fcntl(status.get(), F_GETFL) | O_NONBLOCK);
  int code = 0;
  return read(status.get(), &code, sizeof code) == sizeof code ? code : 0;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) throw ProcessError("cannot run an empty command");
  auto deadline = SteadyClock::now() + options.timeout;
  std::vector<std::string> args_text = argv;
  std::vector<std::string> env_text = child_environment(options.extra_env);
  std::vector<char*> args = pointers(args_text);
  std::vector<char*> env = pointers(env_text);
  ChildPipes pipes{make_pipe(argv[0]), make_pipe(argv[0]), make_pipe(argv[0]), {}};
  if (!options.input.empty()) pipes.in = make_pipe(argv[0]);
  pid_t pid = fork();
  if (pid < 0) throw ProcessError("cannot start " + argv[0] + ": fork: " + std::strerror(errno));
  if (pid == 0) exec_child(args.data(), env.data(), pipes);
  Child child(pid);
  setpgid(pid, pid);  // also here: no race with the child's own call
  for (Fd* child_end : {&pipes.out.write, &pipes.err.write, &pipes.status.write, &pipes.in.read})
    child_end->reset();
  PendingInput input{std::move(pipes.in.write), &options.input, 0};
  if (input.fd.get() >= 0) fcntl(input.fd.get(), F_SETFL, fcntl(input.fd.get(), F_GETFL) | O_NONBLOCK);
  ProcessResult result;
  Ending ending = Ending::finished;
  {
    SigpipeBlock no_sigpipe;
    ending = exchange({&pipes.out.read, &pipes.err.read}, input, deadline, options, argv[0], result);
  }
  // Killed before its pipes close: a child still writing would otherwise die
  // of SIGPIPE first and be reported as such instead of as killed.
  if (ending != Ending::finished) child.kill_group();
  // The child closed its output but may still hold stdin: it gets EOF or EPIPE.
  for (Fd* ours : {&pipes.out.read, &pipes.err.read, &input.fd})
    ours->reset();
  result.timed_out = ending == Ending::timed_out;
  result.output_exceeded = ending == Ending::output_exceeded;
  record_status(
      ending == Ending::finished ? wait_for_exit(child, deadline, argv[0], options.timeout) : child.wait(),
      result);
  result.exec_error = exec_error(pipes.status.read);
  return result;
}

}  // namespace opctl::process
