// The hook kinds' command transport: the request on stdin, the answer from
// stdout, and each way a hook can fail turned into the message its resource's
// Degraded condition shows.
#include <catch2/catch.hpp>
#include <chrono>

#include "kinds/hook/hook_transport.hpp"

using namespace opctl::kinds;

TEST_CASE("the command transport feeds stdin, reads stdout, and reports exits, timeouts and missing programs",
          "[kinds][hook]") {
  auto echo = hook::command_transport({"/bin/sh", "-c", "cat"}, std::chrono::seconds(5));
  CHECK(echo->call("{\"x\": 1}") == "{\"x\": 1}");
  std::string big(1 << 20, 'a');
  auto ignores_input = hook::command_transport({"/bin/sh", "-c", "echo ok"}, std::chrono::seconds(5));
  CHECK(ignores_input->call(big) == "ok\n");
  auto fails = hook::command_transport({"/bin/sh", "-c", "echo broken >&2; exit 3"}, std::chrono::seconds(5));
  CHECK_THROWS_WITH(fails->call("{}"), Catch::Contains("exited with status 3: broken"));
  auto slow = hook::command_transport({"/bin/sh", "-c", "sleep 30 & sleep 30"}, std::chrono::seconds(1));
  auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(slow->call("{}"), Catch::Contains("timed out after 1s and was killed"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  auto missing = hook::command_transport({"/nonexistent/hook"}, std::chrono::seconds(1));
  CHECK_THROWS_WITH(missing->call("{}"), "cannot run the hook /nonexistent/hook: No such file or directory");
}

TEST_CASE("a hook killed by a signal says which, with the end of its stderr", "[kinds][hook]") {
  auto dies =
      hook::command_transport({"/bin/sh", "-c", "echo dying >&2; kill -KILL $$"}, std::chrono::seconds(5));
  CHECK_THROWS_WITH(dies->call("{}"), "the hook /bin/sh was killed by signal 9: dying");
}

TEST_CASE("a hook that writes more than 16 MiB is stopped, not collected", "[kinds][hook]") {
  // Given a hook that floods stdout and then hangs, we should stop it at the cap, not wait for its timeout.
  auto floods = hook::command_transport({"/bin/sh", "-c", "head -c 20000000 /dev/zero; sleep 30"},
                                        std::chrono::seconds(20));
  auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(floods->call("{}"), "the hook /bin/sh wrote more than 16777216 bytes");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(15));
}

TEST_CASE("an empty hook command is an error, not a crash", "[kinds][hook]") {
  CHECK_THROWS_WITH(hook::command_transport({}, std::chrono::seconds(1))->call("{}"),
                    "the hook command is empty");
}
