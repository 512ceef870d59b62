// The request rate as a state machine over explicit times: unlimited until
// the server pushes back, halved then, regained gradually, lifted again well
// above the rate pushed back at; a fixed --qps and --qps 0 never adapt.
#include <catch2/catch.hpp>

#include "kube/adaptive_rate.hpp"

using namespace std::chrono_literals;
using opctl::kube::AdaptiveRate;
using opctl::kube::RateAnswer;
using Time = AdaptiveRate::Clock::time_point;

namespace {

const Time k_t0 = AdaptiveRate::Clock::time_point() + 1h;

// Starts `count` requests evenly over [from, from + over), each allowed.
void send_evenly(AdaptiveRate& rate, Time from, int count, std::chrono::milliseconds over) {
  for (int i = 0; i < count; ++i)
    REQUIRE(rate.try_take(from + over * i / count));
}

RateAnswer answer(long status, Time sent, bool has_retry_after = false) {
  return RateAnswer{status, has_retry_after, sent};
}

// How many of the requests tried every millisecond over [from, from + over) may start.
int starts_allowed(AdaptiveRate& rate, Time from, std::chrono::milliseconds over) {
  int allowed = 0;
  for (auto at = from; at < from + over; at += 1ms)
    allowed += rate.try_take(at) ? 1 : 0;
  return allowed;
}

// An adaptive rate that was pushed back at 100 requests/s at `k_t0 + 1s`, so limited to 50.
AdaptiveRate pushed_back_at_100() {
  AdaptiveRate rate(std::nullopt, 400);
  send_evenly(rate, k_t0, 100, 1000ms);
  auto change = rate.on_answer(answer(429, k_t0 + 990ms), k_t0 + 1s);
  REQUIRE(change);
  return rate;
}

}  // namespace

TEST_CASE("adaptive: without pushback nothing limits the rate", "[adaptive_rate]") {
  // Given a server that never answers 429, we should start every request at once, as --qps 0 does.
  AdaptiveRate rate(std::nullopt, 400);
  for (int i = 0; i < 5000; ++i)
    REQUIRE(rate.try_take(k_t0));
  CHECK_FALSE(rate.on_answer(answer(200, k_t0), k_t0 + 5ms));
  CHECK_FALSE(rate.on_answer(answer(404, k_t0), k_t0 + 5ms));
  CHECK_FALSE(rate.limit());
}

TEST_CASE("adaptive: a 429 halves the rate achieved over the last second", "[adaptive_rate]") {
  // Given 100 requests started over the last second and a 429, we should send at most 50 a second.
  AdaptiveRate rate(std::nullopt, 400);
  send_evenly(rate, k_t0, 100, 1000ms);
  auto change = rate.on_answer(answer(429, k_t0 + 990ms), k_t0 + 1s);
  REQUIRE(change);
  CHECK(change->status == 429);
  CHECK(change->sending == Approx(100));
  REQUIRE(change->limit);
  CHECK(*change->limit == Approx(50));
  CHECK(rate.limit() == change->limit);
  CHECK(opctl::kube::describe(*change) ==
        "opctl: the server answered 429 at 100 requests/s: sending at most 50 requests/s");

  // No saved-up starts survive the decrease; then one every 20 ms, the first 20 ms after it.
  CHECK_FALSE(rate.try_take(k_t0 + 1s));
  CHECK(starts_allowed(rate, k_t0 + 1s, 1000ms) == 49);
}

TEST_CASE("adaptive: a burst of 429s from one moment cuts the rate once", "[adaptive_rate]") {
  // Given many 429s for requests sent before the decrease, or within a second of it, we should not cut again.
  AdaptiveRate rate = pushed_back_at_100();
  CHECK_FALSE(rate.on_answer(answer(429, k_t0 + 995ms), k_t0 + 1500ms));  // sent before the decrease
  REQUIRE(rate.try_take(k_t0 + 1100ms));
  CHECK_FALSE(rate.on_answer(answer(429, k_t0 + 1100ms), k_t0 + 1200ms));  // within the window
  CHECK(*rate.limit() == Approx(50));

  // A second later the server still pushes back on a request sent at 50 a second: halve again.
  send_evenly(rate, k_t0 + 1120ms, 50, 1000ms);
  auto change = rate.on_answer(answer(429, k_t0 + 2100ms), k_t0 + 2120ms);
  REQUIRE(change);
  CHECK(*change->limit == Approx(25).epsilon(0.05));
}

TEST_CASE("adaptive: 503 with Retry-After is pushback; other failures are not", "[adaptive_rate]") {
  using opctl::kube::is_pushback;
  CHECK(is_pushback(429, false));
  CHECK(is_pushback(429, true));
  CHECK(is_pushback(503, true));
  CHECK_FALSE(is_pushback(503, false));
  CHECK_FALSE(is_pushback(500, true));
  CHECK_FALSE(is_pushback(0, false));

  AdaptiveRate rate(std::nullopt, 400);
  send_evenly(rate, k_t0, 100, 1000ms);
  CHECK_FALSE(rate.on_answer(answer(503, k_t0 + 900ms), k_t0 + 1s));
  CHECK_FALSE(rate.on_answer(answer(0, k_t0 + 900ms), k_t0 + 1s));
  CHECK_FALSE(rate.limit());
  auto change = rate.on_answer(answer(503, k_t0 + 900ms, true), k_t0 + 1s);
  REQUIRE(change);
  CHECK(*rate.limit() == Approx(50));
  CHECK_THAT(opctl::kube::describe(*change),
             Catch::StartsWith("opctl: the server answered 503 with Retry-After"));
}

TEST_CASE("adaptive: the limit never drops below the floor", "[adaptive_rate]") {
  // Given a server that pushes back on every request, second after second, we should still send 5 a second.
  AdaptiveRate rate(std::nullopt, 400);
  Time now = k_t0;
  for (int second = 0; second < 20; ++second) {
    rate.try_take(now);
    rate.on_answer(answer(429, now), now + 10ms);
    now += 1100ms;
  }
  REQUIRE(rate.limit());
  CHECK(*rate.limit() == Approx(opctl::kube::k_adaptive_min_rate));
  // 5 a second, plus the one start saved up (100 ms of slack) while nothing was sent.
  CHECK(starts_allowed(rate, now, 10s) == 51);
}

TEST_CASE("adaptive: answers that are not pushback raise the limit gradually", "[adaptive_rate]") {
  // Given a limit of 50 after a 429, we should gain 10 requests/s for each second answered without pushback.
  AdaptiveRate rate = pushed_back_at_100();
  CHECK_FALSE(rate.on_answer(answer(200, k_t0 + 1200ms), k_t0 + 1500ms));
  CHECK(*rate.limit() == Approx(55));
  CHECK_FALSE(rate.on_answer(answer(409, k_t0 + 2s), k_t0 + 2500ms));  // any answer the server processed
  CHECK(*rate.limit() == Approx(65));
  SECTION("an idle gap earns at most one window") {
    rate.on_answer(answer(200, k_t0 + 12s), k_t0 + 12500ms);
    CHECK(*rate.limit() == Approx(75));
  }
  SECTION("time that ended in pushback earns nothing") {
    rate.on_answer(answer(429, k_t0 + 900ms), k_t0 + 3s);  // sent before the decrease: no cut either
    rate.on_answer(answer(200, k_t0 + 3s), k_t0 + 3500ms);
    CHECK(*rate.limit() == Approx(70));
  }
  SECTION("failures earn nothing") {
    rate.on_answer(answer(500, k_t0 + 3s), k_t0 + 3s);
    rate.on_answer(answer(0, k_t0 + 3s), k_t0 + 3s);
    CHECK(*rate.limit() == Approx(65));
  }
}

TEST_CASE("adaptive: the limit is lifted at twice the rate pushed back at", "[adaptive_rate]") {
  // Given a 429 at 100 requests/s, we should send without a limit again once the limit reaches 200.
  AdaptiveRate rate = pushed_back_at_100();
  Time now = k_t0 + 1s;
  std::optional<opctl::kube::RateChange> lifted;
  int answers = 0;
  while (!lifted && answers < 100) {
    now += 500ms;
    lifted = rate.on_answer(answer(200, now - 10ms), now);
    ++answers;
  }
  REQUIRE(lifted);
  CHECK(answers == 30);  // (200 - 50) / 10 per second = 15 s
  CHECK_FALSE(lifted->limit);
  CHECK_FALSE(rate.limit());
  CHECK(opctl::kube::describe(*lifted) ==
        "opctl: the server has stopped pushing back: no client-side rate limit again");
  for (int i = 0; i < 1000; ++i)
    REQUIRE(rate.try_take(now));
}

TEST_CASE("a fixed --qps is the token bucket it always was, whatever the server answers", "[adaptive_rate]") {
  AdaptiveRate rate(10, 2);
  CHECK(rate.try_take(k_t0));
  CHECK(rate.try_take(k_t0));
  CHECK_FALSE(rate.try_take(k_t0));
  CHECK_FALSE(rate.on_answer(answer(429, k_t0), k_t0 + 10ms));
  CHECK_FALSE(rate.on_answer(answer(503, k_t0, true), k_t0 + 10ms));
  CHECK_FALSE(rate.on_answer(answer(200, k_t0), k_t0 + 10ms));
  CHECK(rate.limit() == 10);
  CHECK_FALSE(rate.try_take(k_t0 + 50ms));
  CHECK(rate.try_take(k_t0 + 100ms));
  CHECK(starts_allowed(rate, k_t0 + 150ms, 1000ms) == 10);
}

TEST_CASE("--qps 0 never limits and never adapts", "[adaptive_rate]") {
  AdaptiveRate rate(0, 400);
  for (int i = 0; i < 1000; ++i)
    REQUIRE(rate.try_take(k_t0));
  CHECK_FALSE(rate.on_answer(answer(429, k_t0), k_t0 + 10ms));
  CHECK_FALSE(rate.limit());
  CHECK(rate.try_take(k_t0 + 10ms));
}
