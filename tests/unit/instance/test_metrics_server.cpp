#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <stdexcept>

#include "instance/metrics_server.hpp"

namespace opctl::instance {
namespace {

using namespace std::chrono_literals;

// One connection to the server on loopback: sends `request` and reads until the server closes.
std::string exchange_with_metrics_server(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  if (!request.empty()) REQUIRE(send(fd, request.data(), request.size(), MSG_NOSIGNAL) > 0);
  std::string response;
  char buffer[4096];
  while (true) {
    ssize_t received = recv(fd, buffer, sizeof buffer, 0);
    if (received <= 0) break;
    response.append(buffer, static_cast<std::size_t>(received));
  }
  close(fd);
  return response;
}

MetricsServerOptions loopback_server_options() {
  MetricsServerOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  options.read_timeout = 500ms;
  options.max_request_bytes = 1024;
  return options;
}

TEST_CASE("GET /metrics answers the handler's text in Prometheus's text format", "[instance][metrics]") {
  // Given a server on loopback, a scrape should get 200, the format's content type and the text.
  MetricsServer server(loopback_server_options(), [] { return std::string("opctl_collector_up 1\n"); });
  REQUIRE(server.port() > 0);
  std::string response = exchange_with_metrics_server(
      server.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n\r\n");
  CHECK(response.starts_with("HTTP/1.1 200 OK\r\n"));
  CHECK_THAT(response,
             Catch::Matchers::Contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
  CHECK_THAT(response, Catch::Matchers::Contains("Content-Length: 21\r\n"));
  CHECK(response.ends_with("\r\n\r\nopctl_collector_up 1\n"));
  // A second scrape on a new connection is served too.
  CHECK(exchange_with_metrics_server(server.port(), "GET /metrics?x=1 HTTP/1.0\r\n\r\n")
            .starts_with("HTTP/1.1 200 OK"));
}

TEST_CASE("the server refuses what is not GET /metrics or /healthz, and a handler's failure is a 500",
          "[instance][metrics]") {
  MetricsServer server(loopback_server_options(), []() -> std::string { throw std::runtime_error("boom"); });
  CHECK(exchange_with_metrics_server(server.port(), "GET /metrics HTTP/1.1\r\n\r\n")
            .starts_with("HTTP/1.1 500 "));
  CHECK(
      exchange_with_metrics_server(server.port(), "GET /healthz HTTP/1.1\r\n\r\n").ends_with("\r\n\r\nok\n"));
  CHECK(exchange_with_metrics_server(server.port(), "POST /metrics HTTP/1.1\r\n\r\n")
            .starts_with("HTTP/1.1 405 "));
  CHECK(exchange_with_metrics_server(server.port(), "GET /other HTTP/1.1\r\n\r\n")
            .starts_with("HTTP/1.1 404 "));
  CHECK(exchange_with_metrics_server(server.port(), "nonsense\r\n\r\n").starts_with("HTTP/1.1 400 "));
  std::string huge = "GET /metrics HTTP/1.1\r\nX: " + std::string(2000, 'a') + "\r\n\r\n";
  CHECK(exchange_with_metrics_server(server.port(), huge).starts_with("HTTP/1.1 431 "));
}

TEST_CASE("a client that sends nothing is dropped after the read timeout, and the next one is served",
          "[instance][metrics]") {
  MetricsServer server(loopback_server_options(), [] { return std::string("opctl_collector_up 0\n"); });
  CHECK(exchange_with_metrics_server(server.port(), "GET /metr").empty());
  CHECK(exchange_with_metrics_server(server.port(), "GET /metrics HTTP/1.1\r\n\r\n")
            .ends_with("opctl_collector_up 0\n"));
}

TEST_CASE("a port that is taken is an error, not a crash", "[instance][metrics]") {
  MetricsServer first(loopback_server_options(), [] { return std::string(); });
  auto options = loopback_server_options();
  options.port = first.port();
  CHECK_THROWS_WITH(MetricsServer(options, [] { return std::string(); }),
                    Catch::Matchers::Contains("cannot listen on 127.0.0.1 port"));
}

}  // namespace
}  // namespace opctl::instance
