#include <catch2/catch.hpp>

#include "kube/api_error.hpp"
#include "kube/http_transport.hpp"
#include "support/loopback_http_server.hpp"

using namespace std::chrono_literals;
using opctl::kube::ClusterConfig;
using opctl::kube::HttpRequest;
using opctl::kube::TransportOptions;

namespace {

// Nothing listens on port 1: every connect is refused at once, no network needed.
ClusterConfig refusing_server() {
  ClusterConfig cluster;
  cluster.server = "https://127.0.0.1:1";
  cluster.token = "opctl-unit-secret-token";
  return cluster;
}

TransportOptions fast(std::vector<std::string>& log) {
  TransportOptions options;
  options.max_attempts = 3;
  options.initial_backoff = 1ms;
  options.max_backoff = 5ms;
  options.verbose = true;
  options.log = [&log](const std::string& line) { log.push_back(line); };
  return options;
}

HttpRequest get(const std::string& path) {
  HttpRequest request;
  request.path = path;
  return request;
}

}  // namespace

TEST_CASE("insecure-skip-tls-verify is warned about once per transport, through the log sink",
          "[transport]") {
  std::vector<std::string> log;
  ClusterConfig cluster = refusing_server();
  cluster.insecure_skip_tls_verify = true;
  cluster.source = "/home/me/.kube/config";
  auto transport = opctl::kube::make_curl_transport(cluster, fast(log));
  transport->send_all({HttpRequest{}, HttpRequest{}});
  int warnings = 0;
  for (const auto& line : log)
    if (line.find("TLS certificate verification is disabled") != std::string::npos) {
      ++warnings;
      CHECK_THAT(line, Catch::Contains("https://127.0.0.1:1") && Catch::Contains("/home/me/.kube/config"));
    }
  CHECK(warnings == 1);
}

TEST_CASE("a GET that cannot connect is retried up to the attempt budget and says so", "[transport]") {
  std::vector<std::string> log;
  auto transport = opctl::kube::make_curl_transport(refusing_server(), fast(log));
  HttpRequest request;
  request.path = "/api/v1/namespaces";
  auto response = transport->send(request);
  CHECK(response.status == 0);
  CHECK(response.attempts == 3);
  auto status = opctl::kube::decode_status(response, "GET /api/v1/namespaces");
  CHECK(status.reason == opctl::kube::ApiReason::unreachable);
  CHECK_THAT(status.message, Catch::Contains("gave up after 3 attempts") && Catch::Contains("127.0.0.1:1"));
  CHECK(transport->stats().requests == 3);
  CHECK(transport->stats().retries == 2);
  REQUIRE(log.size() == 3);
  CHECK_THAT(log[0], Catch::Contains("GET /api/v1/namespaces -> ") && Catch::Contains("will retry"));
  for (const auto& line : log)
    CHECK_THAT(line, !Catch::Contains("opctl-unit-secret-token"));
  CHECK_THAT(status.message, !Catch::Contains("opctl-unit-secret-token"));
}

TEST_CASE("a create that fails in transit is not retried, and the error says why", "[transport]") {
  std::vector<std::string> log;
  auto transport = opctl::kube::make_curl_transport(refusing_server(), fast(log));
  HttpRequest create;
  create.method = "POST";
  create.path = "/api/v1/namespaces/x/configmaps";
  create.body = "{}";
  create.retryable = false;
  auto response = transport->send(create);
  CHECK(response.attempts == 1);
  CHECK_THAT(response.transport_error, Catch::Contains("not retried"));
}

TEST_CASE("tls-server-name keeps the server's path prefix", "[transport]") {
  std::vector<std::string> log;
  ClusterConfig cluster = refusing_server();
  cluster.server = "https://127.0.0.1:1/k8s/clusters/c-1";
  cluster.tls_server_name = "kubernetes.default";
  TransportOptions options = fast(log);
  options.max_attempts = 1;
  auto response = opctl::kube::make_curl_transport(cluster, options)->send(get("/api"));
  CHECK_THAT(response.transport_error,
             Catch::StartsWith("https://kubernetes.default:1/k8s/clusters/c-1/api"));
}

TEST_CASE("a server URL with user information never shows it in errors or logs", "[transport]") {
  // Given a kubeconfig server written as https://user:password@host, we should name the host only.
  std::vector<std::string> log;
  ClusterConfig cluster = refusing_server();
  cluster.server = "https://admin:kube-pw-123@127.0.0.1:1";
  cluster.insecure_skip_tls_verify = true;
  auto transport = opctl::kube::make_curl_transport(cluster, fast(log));
  auto response = transport->send(get("/api"));
  CHECK_THAT(response.transport_error, Catch::Contains("https://127.0.0.1:1/api"));
  CHECK_THAT(response.transport_error, !Catch::Contains("kube-pw-123"));
  for (const auto& line : log)
    CHECK_THAT(line, !Catch::Contains("kube-pw-123"));
}

TEST_CASE("a batch the server throttles at first completes, slower, and says so under -v",
          "[transport][adaptive_rate]") {
  // Given a real server that answers the first 4 requests 429 (Retry-After: 0), we should retry each once,
  // get 200 for all 16, and log that the server's 429 lowered the rate.
  using opctl::testing::HttpAnswer;
  constexpr int k_throttled = 4, k_requests = 16;
  std::vector<HttpAnswer> answers(
      k_throttled, HttpAnswer{.status = 429,
                              .body = R"({"kind":"Status","status":"Failure","reason":"TooManyRequests"})",
                              .headers = {{"Retry-After", "0"}}});
  answers.push_back(HttpAnswer{.status = 200, .body = "{}"});
  opctl::testing::LoopbackHttpServer server(answers);
  ClusterConfig cluster;
  cluster.server = server.url("");
  std::vector<std::string> log;
  TransportOptions options = fast(log);
  options.concurrency = 4;  // within the server's listen backlog: it accepts one connection at a time
  options.max_attempts = k_throttled + 1;  // whichever attempts the 4 429s fall on, each request succeeds
  REQUIRE_FALSE(options.qps);              // the default adapts

  std::vector<HttpRequest> requests;
  for (int i = 0; i < k_requests; ++i)
    requests.push_back(get("/api/v1/namespaces/default/configmaps/cm-" + std::to_string(i)));
  auto transport = opctl::kube::make_curl_transport(cluster, options);
  auto responses = transport->send_all(requests);

  int retried = 0;
  for (const auto& response : responses) {
    CHECK(response.status == 200);
    CHECK(response.body == "{}");
    retried += response.attempts - 1;
  }
  CHECK(retried == k_throttled);
  CHECK(transport->stats().retries == k_throttled);
  CHECK(transport->stats().requests == k_requests + k_throttled);
  CHECK(server.requests().size() == k_requests + k_throttled);
  int adapted = 0;
  for (const auto& line : log)
    if (line.starts_with("opctl: the server answered 429 at ")) {
      ++adapted;
      CHECK_THAT(line, Catch::Contains("requests/s: sending at most "));
    }
  CHECK(adapted >= 1);
}
