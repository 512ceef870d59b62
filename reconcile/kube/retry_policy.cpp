#include "kube/retry_policy.hpp"

#include <algorithm>

namespace opctl::kube {

bool is_retryable_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

bool should_retry(const HttpRequest& request, long status) {
  if (status == 429) return true;
  if (status == 0) return request.retryable;
  return request.retryable && is_retryable_status(status);
}

std::chrono::milliseconds retry_delay(int attempt, std::optional<std::chrono::seconds> retry_after,
                                      const TransportOptions& options, std::mt19937& random) {
  if (retry_after) return *retry_after;
  auto base = options.initial_backoff * (1LL << std::clamp(attempt - 1, 0, 20));
  base = std::min<std::chrono::milliseconds>(base, options.max_backoff);
  if (base.count() <= 0) return std::chrono::milliseconds(0);
  std::uniform_int_distribution<long long> jitter(0, base.count() / 2);
  return base + std::chrono::milliseconds(jitter(random));
}

}  // namespace opctl::kube
