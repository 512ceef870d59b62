// The exporter's HTTP server: a small one of its own (POSIX sockets, one
// thread), so the instance manager needs no web framework. It answers
// GET /metrics with the handler's text (Content-Type text/plain;
// version=0.0.4) and GET /healthz with "ok" (the liveness and startup probes:
// the manager's process answers); anything else 404 or 405. A request must
// arrive whole within the read timeout and the size limit, and one answer is
// sent per connection. The thread is not the manager's step loop: a slow
// scrape delays only the next scrape.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <thread>

namespace opctl::instance {

struct MetricsServerOptions {
  std::string address;  // an IPv4 or IPv6 address; empty: every address
  int port = 0;         // 0: any free port (tests)
  std::chrono::milliseconds read_timeout{5000};
  std::chrono::milliseconds write_timeout{10000};
  std::size_t max_request_bytes = 8192;
};

// Produces the /metrics body; an exception becomes a 500.
using MetricsHandler = std::function<std::string()>;

class MetricsServer {
 public:
  // Binds and listens (throws InstanceError when it cannot), then serves on a thread of its own.
  MetricsServer(const MetricsServerOptions& options, MetricsHandler handler);
  ~MetricsServer();  // stops serving and joins the thread
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }

 private:
  void serve();
  void answer(int client);

  MetricsServerOptions options_;
  MetricsHandler handler_;
  int listener_ = -1;
  int stop_read_ = -1;
  int stop_write_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// The response to one request's text (request line and headers), or "" while
// the text is incomplete: a status line, headers and the body. Pure.
std::string metrics_response(const std::string& request, const MetricsHandler& handler);

}  // namespace opctl::instance
