// HTTP to the API server: the interface the client uses, and the libcurl
// implementation (HTTP/2 multiplexing, bounded concurrency, rate limit, retries).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kube/cluster_config.hpp"

namespace opctl::kube {

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // "/api/v1/namespaces?limit=500", already escaped
  std::string body;
  std::string content_type;
  std::string accept = "application/json";
  // Safe to send again after a timeout or a reset: GET, server-side apply,
  // DELETE. A create is not (it may have landed).
  bool retryable = true;
};

struct HttpResponse {
  long status = 0;            // 0 when no HTTP response arrived
  std::string body;
  std::string transport_error;  // libcurl's message when status is 0
  int attempts = 0;
};

struct TransportOptions {
  std::string user_agent = "opctl";
  int concurrency = 16;             // requests in flight at once
  double qps = 100;                 // client-side rate limit; <= 0 means none
  int burst = 200;
  int max_attempts = 5;             // per request, for retryable failures
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{10'000};
  std::chrono::milliseconds request_timeout{60'000};
  std::chrono::milliseconds connect_timeout{10'000};
  bool verbose = false;  // log each request line (never headers or bodies) to stderr
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Sends all requests, at most `concurrency` at a time; responses in order.
  virtual std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& requests) = 0;
  HttpResponse send(const HttpRequest& request) { return send_all({request}).front(); }
};

std::unique_ptr<HttpTransport> make_curl_transport(const ClusterConfig& cluster, const TransportOptions& options);

}  // namespace opctl::kube
