// The command transport: fork/exec with three pipes and a poll loop, so a
// hook that never reads its input or never exits cannot block the pass.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "kinds/hook/hook_transport.hpp"

namespace opctl::kinds::hook {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t k_max_output = 16 * 1024 * 1024;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw HookError(std::string("cannot create a pipe: ") + std::strerror(errno));
  return {Fd(fds[0]), Fd(fds[1])};
}

// Writing to a hook that exited raises SIGPIPE; block it in this thread for
// the duration and swallow a pending one, leaving process-wide state alone.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~SigpipeGuard() {
    timespec zero{0, 0};
    while (sigtimedwait(&set_, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t set_{}, old_{};
};

[[noreturn]] void exec_child(const std::vector<std::string>& argv, Pipe& in, Pipe& out, Pipe& err, Pipe& status) {
  ::setpgid(0, 0);
  ::dup2(in.read.get(), STDIN_FILENO);
  ::dup2(out.write.get(), STDOUT_FILENO);
  ::dup2(err.write.get(), STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
  ::execvp(args[0], args.data());
  int code = errno;
  ssize_t ignored = ::write(status.write.get(), &code, sizeof code);
  (void)ignored;
  ::_exit(127);
}

std::string tail(const std::string& text) {
  std::string trimmed = text.size() > 2000 ? "..." + text.substr(text.size() - 2000) : text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
  return trimmed;
}

class CommandTransport : public HookTransport {
 public:
  CommandTransport(std::vector<std::string> argv, std::chrono::seconds timeout)
      : argv_(std::move(argv)), timeout_(timeout) {}

  std::string call(const std::string& request) override {
    if (argv_.empty()) throw HookError("the hook command is empty");
    SigpipeGuard guard;
    Pipe in = make_pipe(), out = make_pipe(), err = make_pipe(), status = make_pipe();
    pid_t pid = ::fork();
    if (pid < 0) throw HookError(std::string("cannot start the hook: fork: ") + std::strerror(errno));
    if (pid == 0) exec_child(argv_, in, out, err, status);
    in.read.reset();
    out.write.reset();
    err.write.reset();
    status.write.reset();
    int exec_errno = 0;
    if (::read(status.read.get(), &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
      ::waitpid(pid, nullptr, 0);
      throw HookError(fmt::format("cannot run the hook {}: {}", argv_[0], std::strerror(exec_errno)));
    }
    std::string stdout_text, stderr_text;
    bool timed_out = false;
    try {
      timed_out = !pump(in, out, err, request, stdout_text, stderr_text);
    } catch (const HookError&) {
      ::kill(-pid, SIGKILL);
      reap(pid);
      throw;
    }
    if (timed_out) ::kill(-pid, SIGKILL);
    int wait_status = reap(pid);
    if (timed_out) throw HookError(fmt::format("the hook {} timed out after {}s and was killed", argv_[0], timeout_.count()));
    if (WIFSIGNALED(wait_status))
      throw HookError(fmt::format("the hook {} was killed by signal {}: {}", argv_[0], WTERMSIG(wait_status),
                                  tail(stderr_text)));
    if (WEXITSTATUS(wait_status) != 0)
      throw HookError(fmt::format("the hook {} exited with status {}: {}", argv_[0], WEXITSTATUS(wait_status),
                                  tail(stderr_text)));
    return stdout_text;
  }

 private:
  static int reap(pid_t pid) {
    int wait_status = 0;
    while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
    return wait_status;
  }

  // Feeds stdin and drains stdout/stderr until both close; false on timeout.
  bool pump(Pipe& in, Pipe& out, Pipe& err, const std::string& request, std::string& stdout_text,
            std::string& stderr_text) {
    auto deadline = Clock::now() + timeout_;
    std::size_t written = 0;
    for (int fd : {in.write.get(), out.read.get(), err.read.get()}) ::fcntl(fd, F_SETFL, O_NONBLOCK);
    if (request.empty()) in.write.reset();
    while (out.read.get() >= 0 || err.read.get() >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd fds[3] = {{in.write.get(), POLLOUT, 0}, {out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}};
      int ready = ::poll(fds, 3, static_cast<int>(std::min<long long>(left, 1000)));
      if (ready < 0 && errno != EINTR) throw HookError(std::string("poll: ") + std::strerror(errno));
      if (ready <= 0) continue;
      if (fds[0].revents != 0) {
        ssize_t n = ::write(in.write.get(), request.data() + written, request.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        if (n < 0 && errno != EAGAIN && errno != EINTR) written = request.size();  // EPIPE: it stopped reading
        if (written == request.size()) in.write.reset();
      }
      drain(fds[1], out.read, stdout_text);
      drain(fds[2], err.read, stderr_text);
    }
    return true;
  }

  void drain(const pollfd& polled, Fd& fd, std::string& text) {
    if (polled.fd < 0 || polled.revents == 0) return;
    char buffer[65536];
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
      if (text.size() > k_max_output)
        throw HookError(fmt::format("the hook {} wrote more than {} bytes", argv_[0], k_max_output));
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      fd.reset();
    }
  }

  std::vector<std::string> argv_;
  std::chrono::seconds timeout_;
};

}  // namespace

std::unique_ptr<HookTransport> command_transport(std::vector<std::string> argv, std::chrono::seconds timeout) {
  return std::make_unique<CommandTransport>(std::move(argv), timeout);
}

}  // namespace opctl::kinds::hook
