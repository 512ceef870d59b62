// Errors the API server returns, decoded from its Status objects into types
// a caller can branch on and messages a user understands.
#pragma once

#include <string>
#include <vector>

#include "kube/http_transport.hpp"
#include "model/error.hpp"

namespace opctl::kube {

enum class ApiReason {
  none,
  not_found,
  already_exists,
  conflict,
  gone,  // 410: a resourceVersion or continue token too old to serve
  forbidden,
  unauthorized,
  invalid,
  too_many_requests,
  server_timeout,
  bad_request,
  unavailable,
  internal,
  unreachable,  // no HTTP response at all
  other,
};

struct ApiStatus {
  long code = 0;
  ApiReason reason = ApiReason::none;
  std::string message;
  std::vector<std::string> causes;  // "field: message" for Invalid

  bool ok() const { return reason == ApiReason::none; }
  // One line: message, then causes.
  std::string describe() const;
};

// `what` names the request for messages: "GET https://host/api/v1/...".
ApiStatus decode_status(const HttpResponse& response, const std::string& what);

class ApiError : public ClusterError {
 public:
  explicit ApiError(ApiStatus status) : ClusterError(status.describe()), status_(std::move(status)) {}
  const ApiStatus& status() const { return status_; }

 private:
  ApiStatus status_;
};

}  // namespace opctl::kube
