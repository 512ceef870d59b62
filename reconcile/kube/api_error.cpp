#include "kube/api_error.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "kube/retry_policy.hpp"

namespace opctl::kube {
namespace {

// clang-format off
ApiReason reason_from_code(long code) {
  switch (code) {
    case 400: return ApiReason::bad_request;
    case 401: return ApiReason::unauthorized;
    case 403: return ApiReason::forbidden;
    case 404: return ApiReason::not_found;
    case 409: return ApiReason::conflict;
    case 410: return ApiReason::gone;
    case 422: return ApiReason::invalid;
    case 429: return ApiReason::too_many_requests;
    case 500: return ApiReason::internal;
    case 503: return ApiReason::unavailable;
    case 504: return ApiReason::server_timeout;
    default: return ApiReason::other;
  }
}
// clang-format on

ApiReason reason_from_status(const std::string& reason, long code) {
  if (reason == "NotFound") return ApiReason::not_found;
  if (reason == "AlreadyExists") return ApiReason::already_exists;
  if (reason == "Conflict") return ApiReason::conflict;
  if (reason == "Expired" || reason == "Gone") return ApiReason::gone;
  if (reason == "Forbidden") return ApiReason::forbidden;
  if (reason == "Unauthorized") return ApiReason::unauthorized;
  if (reason == "Invalid") return ApiReason::invalid;
  if (reason == "TooManyRequests") return ApiReason::too_many_requests;
  if (reason == "Timeout" || reason == "ServerTimeout") return ApiReason::server_timeout;
  if (reason == "BadRequest") return ApiReason::bad_request;
  if (reason == "ServiceUnavailable") return ApiReason::unavailable;
  if (reason == "InternalError") return ApiReason::internal;
  return reason_from_code(code);
}

}  // namespace

std::string ApiStatus::describe() const {
  std::string text = message;
  for (const auto& cause : causes)
    text += "; " + cause;
  return text;
}

ApiStatus decode_status(const HttpResponse& response, const std::string& what) {
  ApiStatus status;
  status.code = response.status;
  if (response.status == 0) {
    status.reason = ApiReason::unreachable;
    status.message = fmt::format("{}: cannot reach the API server: {}", what, response.transport_error);
    if (response.attempts > 1)
      status.message += fmt::format(" (gave up after {} attempts)", response.attempts);
    return status;
  }
  if (response.status >= 200 && response.status < 300) return status;
  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
  std::string reason;
  if (body.is_object() && body.value("kind", "") == "Status") {
    reason = body.value("reason", "");
    status.message = body.value("message", "");
    if (body.contains("details") && body["details"].is_object() && body["details"].contains("causes"))
      for (const auto& cause : body["details"]["causes"])
        if (cause.is_object())
          status.causes.push_back(cause.value("field", "") + ": " + cause.value("message", ""));
  }
  status.reason = reason_from_status(reason, response.status);
  if (status.message.empty()) {
    std::string text = response.body.substr(0, 200);
    status.message = fmt::format("{}: HTTP {}{}", what, response.status, text.empty() ? "" : ": " + text);
  } else if (response.status >= 500) {
    // A server error says nothing of which request met it; the caller's context may not either.
    status.message = fmt::format("{}: HTTP {}: {}", what, response.status, status.message);
  }
  if (status.reason == ApiReason::unauthorized)
    status.message += " (the server rejected the credentials: the kubeconfig user, token or service account)";
  if (response.attempts > 1)
    status.message +=
        fmt::format(" ({} {} attempts)", is_retryable_status(response.status) ? "gave up after" : "after",
                    response.attempts);
  return status;
}

}  // namespace opctl::kube
