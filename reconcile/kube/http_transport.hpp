// HTTP to the API server: the interface the client uses, and the libcurl
// implementation (reads over HTTP/1.1, writes multiplexed over HTTP/2, bounded concurrency, rate limit,
// retries).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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

// A GET, which changes nothing: it takes its own connection pool (HTTP/1.1),
// may be abandoned when it stalls, and passes no write gate. Anything else is
// a write.
inline bool is_read(const HttpRequest& request) {
  return request.method == "GET";
}

struct HttpResponse {
  long status = 0;  // 0 when no HTTP response arrived
  std::string body;
  std::string transport_error;  // libcurl's message when status is 0
  int attempts = 0;
};

// Where log lines go: one line per call, without a trailing newline.
using LogSink = std::function<void(const std::string& line)>;

struct TransportOptions {
  std::string user_agent = "opctl";
  int concurrency = 16;  // requests in flight at once
  // Client-side rate limit. nullopt (the default): adaptive, as fast as
  // `concurrency` allows until the server pushes back (429, or 503 with
  // Retry-After, as API Priority and Fairness sheds load), then slower and
  // back up while it does not (kube/adaptive_rate.hpp). A number: a fixed
  // token bucket of `qps` a second and `burst` saved up; <= 0: no limit.
  // Either way a rejected request waits out its Retry-After.
  std::optional<double> qps;
  int burst = 400;       // with a fixed qps only
  int max_attempts = 5;  // per request, for retryable failures
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{10'000};
  std::chrono::milliseconds request_timeout{60'000};
  // A GET that receives nothing for this long is abandoned and sent again
  // (whole seconds; 0: off): a connection that went quiet without closing
  // would otherwise cost the request timeout, a minute. (Reads once stalled
  // so as HTTP/2 streams; they now take HTTP/1.1 connections, see
  // curl_endpoint.cpp.) Writes are exempt: a server may be slow to answer
  // one (admission webhooks) and is never rushed.
  std::chrono::milliseconds read_stall_timeout{15'000};
  std::chrono::milliseconds connect_timeout{10'000};
  bool verbose = false;  // log each request line (never headers or bodies)
  LogSink log;           // verbose lines and warnings; empty: standard error
};

// What a transport has done so far, for tests and `--verbose` summaries.
struct TransportStats {
  std::uint64_t requests = 0;         // attempts sent, retries included
  std::uint64_t retries = 0;          // attempts after the first
  std::uint64_t http2_responses = 0;  // responses that arrived over HTTP/2
  std::uint64_t connections = 0;      // connections opened (TCP + TLS handshakes)
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Sends all requests, at most `concurrency` at a time; responses in order.
  virtual std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& requests) = 0;
  HttpResponse send(const HttpRequest& request) { return send_all({request}).front(); }

  virtual TransportStats stats() const { return {}; }
};

std::unique_ptr<HttpTransport> make_curl_transport(const ClusterConfig& cluster,
                                                   const TransportOptions& options);

}  // namespace opctl::kube
