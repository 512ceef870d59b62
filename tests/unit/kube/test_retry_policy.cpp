#include <catch2/catch.hpp>

#include "kube/retry_policy.hpp"

using namespace std::chrono_literals;
using opctl::kube::retry_delay;
using opctl::kube::should_retry;

TEST_CASE("429 is always retried; resets and 5xx only for requests safe to repeat", "[retry]") {
  opctl::kube::HttpRequest get;
  opctl::kube::HttpRequest create;
  create.method = "POST";
  create.retryable = false;
  CHECK(should_retry(get, 0));
  CHECK(should_retry(get, 503));
  CHECK(should_retry(get, 429));
  CHECK_FALSE(should_retry(get, 404));
  CHECK_FALSE(should_retry(get, 409));
  CHECK_FALSE(should_retry(create, 0));
  CHECK_FALSE(should_retry(create, 503));
  CHECK(should_retry(create, 429));
}

TEST_CASE("backoff doubles from the initial delay up to the cap, with at most 50% jitter", "[retry]") {
  opctl::kube::TransportOptions options;
  options.initial_backoff = 10ms;
  options.max_backoff = 100ms;
  std::mt19937 random(7);
  for (int i = 0; i < 20; ++i) {
    auto first = retry_delay(1, std::nullopt, options, random);
    CHECK(first >= 10ms);
    CHECK(first <= 15ms);
    auto third = retry_delay(3, std::nullopt, options, random);
    CHECK(third >= 40ms);
    CHECK(third <= 60ms);
    auto late = retry_delay(30, std::nullopt, options, random);
    CHECK(late >= 100ms);
    CHECK(late <= 150ms);
  }
  CHECK(retry_delay(1, 2s, options, random) == 2s);
}
