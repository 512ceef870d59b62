#include "instance/postgres_server.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "instance/instance_error.hpp"

namespace opctl::instance {
namespace {

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {}", WTERMSIG(status));
  return "stopped";
}

}  // namespace

PostgresServer::~PostgresServer() {
  // The manager stops the server before it exits; this is for a test or an
  // error path, so an orphan postmaster never outlives its data directory's owner.
  if (pid_ > 0) stop(ShutdownMode::immediate, std::chrono::seconds(10));
}

void PostgresServer::start(const std::vector<std::string>& command) {
  if (running()) throw InstanceError("postgres is already running");
  std::vector<std::string> args = command;
  std::vector<char*> argv;
  for (auto& arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw InstanceError("cannot fork to start postgres");
  if (pid == 0) {
    // Signals the manager blocks to wait for them must not stay blocked in postgres.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  pid_ = pid;
  exit_description_.clear();
  stop_requested_ = false;
}

bool PostgresServer::reaped(pid_t pid, int wait_status) {
  if (pid != pid_ || pid_ <= 0) return false;
  pid_ = -1;
  exit_description_ = describe_wait_status(wait_status);
  return true;
}

void PostgresServer::signal(ShutdownMode mode) const {
  if (pid_ <= 0) return;
  stop_requested_ = true;
  int number = mode == ShutdownMode::smart ? SIGTERM : mode == ShutdownMode::fast ? SIGINT : SIGQUIT;
  kill(pid_, number);
}

bool PostgresServer::stop(ShutdownMode mode, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return true;
  signal(mode);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pid_ > 0) {
    int status = 0;
    pid_t pid = waitpid(pid_, &status, WNOHANG);
    if (pid == pid_) {
      reaped(pid, status);
      break;
    }
    if (pid < 0 && errno == ECHILD) {
      pid_ = -1;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

void PostgresServer::poll() {
  if (pid_ <= 0) return;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) reaped(pid_, status);
}

void reap_children(PostgresServer& server) {
  while (true) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    server.reaped(pid, status);
  }
}

}  // namespace opctl::instance
