// The hook kinds' URL transport against a real HTTP server on 127.0.0.1:
// what goes over the wire (a JSON POST), and how each answer, or the lack of
// one, becomes the call's result or the HookError its resource shows.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>

#include "kinds/hook/hook_transport.hpp"
#include "support/loopback_http_server.hpp"

using opctl::kinds::hook::HookError;
using opctl::kinds::hook::http_transport;
using opctl::testing::HttpAnswer;
using opctl::testing::LoopbackHttpServer;

TEST_CASE("a hook URL gets the request as a JSON POST and its 2xx body is the answer",
          "[kinds][hook][hook_http]") {
  LoopbackHttpServer server(HttpAnswer{.status = 200, .body = R"({"children": []})"});
  std::string request = R"({"parent": {"metadata": {"name": "hello"}}, "finalizing": false})";
  auto transport = http_transport(server.url("/hooks/greeting?v=1"), std::chrono::seconds(5));
  CHECK(transport->call(request) == R"({"children": []})");
  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].target == "/hooks/greeting?v=1");
  // Exactly one Content-Type: ours, not libcurl's form type besides it.
  CHECK(seen[0].header("content-type") == std::vector<std::string>{"application/json"});
  CHECK(seen[0].header("accept") == std::vector<std::string>{"application/json"});
  CHECK(seen[0].header("user-agent") == std::vector<std::string>{"opctl-hook"});
  CHECK(seen[0].header("content-length") == std::vector<std::string>{std::to_string(request.size())});
  CHECK(seen[0].body == request);
}

TEST_CASE("a large request reaches the hook whole", "[kinds][hook][hook_http]") {
  // Given a parent with many children (megabytes of JSON), we should send every byte, 100-continue or not.
  LoopbackHttpServer server(HttpAnswer{.status = 201, .body = "{}"});
  std::string request = "{\"children\": \"" + std::string(3 * 1024 * 1024, 'c') + "\"}";
  CHECK(http_transport(server.url("/"), std::chrono::seconds(10))->call(request) == "{}");  // any 2xx will do
  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].body.size() == request.size());
  CHECK(seen[0].body == request);
}

TEST_CASE("a non-2xx answer is a HookError naming the URL, the status and the start of the body",
          "[kinds][hook][hook_http]") {
  LoopbackHttpServer failing(HttpAnswer{.status = 500, .body = "boom"});
  auto url = failing.url("/greeting");
  CHECK_THROWS_WITH(http_transport(url, std::chrono::seconds(5))->call("{}"),
                    "the hook " + url + " answered HTTP 500: boom");

  // A long error page is cut to its first 2000 bytes, so a condition's message stays readable.
  LoopbackHttpServer verbose(
      HttpAnswer{.status = 503, .body = std::string(2000, 'a') + std::string(3000, 'b')});
  try {
    http_transport(verbose.url("/"), std::chrono::seconds(5))->call("{}");
    FAIL("a 503 was taken as an answer");
  } catch (const HookError& error) {
    std::string message = error.what();
    CHECK_THAT(message, Catch::EndsWith("answered HTTP 503: " + std::string(2000, 'a')));
  }
}

TEST_CASE("a redirect is not followed: it is an answer outside 2xx", "[kinds][hook][hook_http]") {
  LoopbackHttpServer moved(HttpAnswer{.status = 302, .body = ""});
  CHECK_THROWS_WITH(http_transport(moved.url("/old"), std::chrono::seconds(5))->call("{}"),
                    Catch::Contains("answered HTTP 302"));
  CHECK(moved.requests().size() == 1);
}

TEST_CASE("a hook that does not answer within the timeout is given up on, not waited for",
          "[kinds][hook][hook_http]") {
  LoopbackHttpServer slow(HttpAnswer{.status = 200, .body = "{}", .delay = std::chrono::seconds(4)});
  auto url = slow.url("/slow");
  auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(http_transport(url, std::chrono::seconds(1))->call("{}"),
                    "the hook " + url + " did not answer within 1s");
  auto took = std::chrono::steady_clock::now() - started;
  CHECK(took >= std::chrono::milliseconds(900));
  CHECK(took < std::chrono::seconds(3));
  CHECK(slow.requests().size() == 1);  // it was sent, and the answer never came in time
}

TEST_CASE("a refused connection is a HookError naming the URL and curl's reason",
          "[kinds][hook][hook_http]") {
  // A port that is bound but not listening refuses at once, and stays ours for the test.
  int bound = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  REQUIRE(::bind(bound, reinterpret_cast<sockaddr*>(&address), length) == 0);
  REQUIRE(::getsockname(bound, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/";
  CHECK_THROWS_AS(http_transport(url, std::chrono::seconds(5))->call("{}"), HookError);
  CHECK_THROWS_WITH(http_transport(url, std::chrono::seconds(5))->call("{}"),
                    "the hook " + url + " failed: Couldn't connect to server");
  ::close(bound);
}
