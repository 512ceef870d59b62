// The one side effect of a notification: an HTTP POST of a JSON body (and
// the metrics push's PUT goes the same way). Behind
// an interface so the notifier's retries and warnings are tested without a
// network; curl_poster.cpp is the real one (one libcurl easy handle per call:
// a pass sends a handful, so no connection pool).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace opctl::notify {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"; may hold a credential, never printed
  std::string body;                  // JSON for a notification
  std::string method = "POST";       // PUT for a Pushgateway's group
  std::string content_type = "application/json";
};

struct HttpResponse {
  long status = 0;    // 0: no answer (see error)
  std::string error;  // the transport's error: refused, timed out, TLS
  std::string body;   // the start of the answer, for a warning
};

class HttpPoster {
 public:
  virtual ~HttpPoster() = default;
  virtual HttpResponse post(const HttpRequest& request, std::chrono::milliseconds timeout) = 0;
};

std::unique_ptr<HttpPoster> curl_poster();

}  // namespace opctl::notify
