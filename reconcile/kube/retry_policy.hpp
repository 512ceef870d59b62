// When a failed request is sent again, and how long to wait first:
// exponential backoff with jitter, or what the server's Retry-After asks.
#pragma once

#include <chrono>
#include <optional>
#include <random>
#include <string_view>

#include "kube/http_transport.hpp"

namespace opctl::kube {

// The longest Retry-After honoured; a larger value is taken as this.
inline constexpr std::chrono::seconds k_max_retry_after{300};

// 429 and the 5xx statuses that mean "try again later".
bool is_retryable_status(long status);

// Whether an attempt that ended with `status` (0: no response) may be sent
// again. A 429 always may: the server did not process the request. Anything
// else only when the request is safe to repeat.
bool should_retry(const HttpRequest& request, long status);

// The wait before attempt `attempt + 1`: Retry-After when given, otherwise
// initial_backoff * 2^(attempt-1), capped at max_backoff, plus up to half
// of that again as jitter so many clients do not retry in step.
std::chrono::milliseconds retry_delay(int attempt, std::optional<std::chrono::seconds> retry_after,
                                      const TransportOptions& options, std::mt19937& random);

}  // namespace opctl::kube
