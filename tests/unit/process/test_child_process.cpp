// run_process: its input written while the output is read (a child that
// answers as it reads takes any amount, one that never reads does not kill us
// with SIGPIPE), and how a child's end is reported: exit, exec failure,
// signal, timeout, output past the cap, a child that closes its output and
// keeps running.
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "process/child_process.hpp"

using opctl::process::ProcessOptions;
using opctl::process::run_process;

TEST_CASE("an input far beyond a pipe's buffer reaches a child that echoes it as it reads",
          "[child_process]") {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  for (int i = 0; options.input.size() < 1024 * 1024; ++i)
    options.input += "line " + std::to_string(i) + "\n";
  auto result = run_process({"cat"}, options);
  CHECK_FALSE(result.timed_out);
  CHECK(result.exit_code == 0);
  CHECK(result.out == options.input);
}

TEST_CASE("a child that exits without reading its large input is no error of ours", "[child_process]") {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  options.input.assign(1024 * 1024, 'x');
  auto result = run_process({"sh", "-c", "echo done"}, options);
  CHECK_FALSE(result.timed_out);
  CHECK(result.exit_code == 0);
  CHECK(result.out == "done\n");
}

TEST_CASE("a program that cannot be executed reports exec's errno and exit 127", "[child_process]") {
  // Given a path to nothing, we should learn why it did not run, not only a shell's 127.
  auto result = run_process({"/nonexistent/program"}, {});
  CHECK(result.exec_error == ENOENT);
  CHECK(result.exit_code == 127);
  CHECK(result.signal == 0);
  auto ran = run_process({"sh", "-c", "exit 127"}, {});
  CHECK(ran.exec_error == 0);  // a program's own 127 is not an exec failure
  CHECK(ran.exit_code == 127);
}

TEST_CASE("a child ended by a signal reports the signal and no exit code", "[child_process]") {
  auto result = run_process({"sh", "-c", "echo dying >&2; kill -TERM $$"}, {});
  CHECK(result.signal == SIGTERM);
  CHECK(result.exit_code == -1);
  CHECK(result.err == "dying\n");
  CHECK_FALSE(result.timed_out);
}

TEST_CASE("a child writing past max_output is killed with its group, long before its timeout",
          "[child_process]") {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  options.max_output = 1000;
  auto started = std::chrono::steady_clock::now();
  auto result = run_process({"sh", "-c", "head -c 100000 /dev/zero; sleep 30"}, options);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  CHECK(result.output_exceeded);
  CHECK_FALSE(result.timed_out);
  CHECK(result.signal == SIGKILL);
  CHECK(result.out.size() > 1000);
  CHECK(result.out.size() < 100000);  // it stopped reading, did not collect everything first
}

TEST_CASE("without max_output, all the output is kept", "[child_process]") {
  auto result = run_process({"sh", "-c", "head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2"}, {});
  CHECK_FALSE(result.output_exceeded);
  CHECK(result.out.size() == 300000);
  CHECK(result.err.size() == 200000);
}

TEST_CASE("a child that never stops writing still times out", "[child_process]") {
  ProcessOptions options;
  options.timeout = std::chrono::milliseconds(500);
  auto started = std::chrono::steady_clock::now();
  auto result = run_process({"sh", "-c", "while :; do echo tick; done"}, options);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  CHECK(result.timed_out);
  CHECK(result.signal == SIGKILL);
  CHECK(result.out.starts_with("tick\n"));
}

TEST_CASE("the child starts with no signal blocked, whatever the calling thread blocks", "[child_process]") {
  // Given a thread that blocks SIGTERM, a program it runs must still be stoppable with SIGTERM.
  sigset_t term, previous;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &previous);
  auto result = run_process({"cat", "/proc/self/status"}, {});
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("\nSigBlk:\t0000000000000000\n"));
}

TEST_CASE("extra_env is added to the environment, overriding what is there", "[child_process]") {
  ProcessOptions options;
  options.extra_env = {{"OPCTL_TEST_VALUE", "given"}, {"HOME", "/overridden"}};
  auto result = run_process({"sh", "-c", "printf '%s %s' \"$OPCTL_TEST_VALUE\" \"$HOME\""}, options);
  CHECK(result.out == "given /overridden");
}

TEST_CASE("an empty command is refused before anything is started", "[child_process]") {
  CHECK_THROWS_AS(run_process({}, {}), opctl::process::ProcessError);
}

namespace {

// Whether `pid` is gone: no such process, or one that died and waits only for
// init to reap it (in a container whose init does not reap, it stays a zombie).
bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  auto after_name = text.rfind(')');
  return after_name != std::string::npos && text.compare(after_name, 3, ") Z") == 0;
}

bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!process_gone(pid)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

pid_t read_pid(const std::string& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

}  // namespace

TEST_CASE("a child that closes its output but keeps running is killed at its timeout, with what it started",
          "[child_process]") {
  // Given a program that writes, closes stdout and stderr, leaves a daemon behind and sleeps on, we should
  // return by its timeout with an error naming it, and leave neither it nor the daemon running.
  char scratch[] = "/tmp/opctl-child-XXXXXX";
  REQUIRE(mkdtemp(scratch) != nullptr);
  const std::string dir = scratch;
  ProcessOptions options;
  options.timeout = std::chrono::milliseconds(700);
  const std::string script = "echo $$ > " + dir + "/leader; (exec >&- 2>&-; exec sleep 20) & echo $! > " +
                             dir + "/daemon; echo out; exec >&- 2>&-; exec sleep 20";
  auto started = std::chrono::steady_clock::now();
  try {
    run_process({"sh", "-c", script}, options);
    FAIL("expected ProcessDidNotExitError");
  } catch (const opctl::process::ProcessDidNotExitError& error) {
    CHECK_THAT(error.what(), Catch::StartsWith("sh closed its output but did not exit within its timeout of "
                                               "700ms; killed it and its process group"));
  }
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  pid_t leader = read_pid(dir + "/leader");
  pid_t daemon = read_pid(dir + "/daemon");
  REQUIRE(leader > 0);
  REQUIRE(daemon > 0);
  CHECK(waitpid(leader, nullptr, WNOHANG) < 0);  // reaped already: no zombie of ours
  CHECK(gone_within(leader, std::chrono::seconds(2)));
  CHECK(gone_within(daemon, std::chrono::seconds(2)));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a child that exits a little after closing its output is waited for, not killed",
          "[child_process]") {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(10);
  auto result = run_process({"sh", "-c", "echo out; exec >&- 2>&-; sleep 0.3; exit 3"}, options);
  CHECK(result.exit_code == 3);
  CHECK(result.out == "out\n");
  CHECK_FALSE(result.timed_out);
}
