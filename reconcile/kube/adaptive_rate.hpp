// When the transport may start its next request: without a client limit, at a
// fixed rate (--qps N), or at a rate adapted to the API server's own pushback
// (--qps auto, the default). A state machine over the time points it is given:
// no clock, no sleeping, so tests drive it with explicit times.
#pragma once

#include <chrono>
#include <deque>
#include <optional>
#include <string>

#include "kube/rate_limiter.hpp"

namespace opctl::kube {

// The adaptive mode's constants; adaptive_rate.cpp says why these values.
inline constexpr double k_adaptive_min_rate = 5;                // requests/s, never lower
inline constexpr double k_adaptive_min_step = 10;               // requests/s gained per second, at least
inline constexpr std::chrono::seconds k_adaptive_window{1};     // rate measured over; one decrease per
inline constexpr std::chrono::seconds k_adaptive_recovery{10};  // back to the rate pushed back at
inline constexpr double k_adaptive_release_factor = 2;          // no limit at this multiple of it
inline constexpr std::chrono::milliseconds k_adaptive_min_span{100};  // of the measured rate

// An answer that asks the client to slow down: a 429 (API Priority and
// Fairness rejects with Retry-After: 1), or a 503 that carries Retry-After
// (an overloaded server or a proxy in front of it). A 503 without one is a
// failure, not a request to send less.
bool is_pushback(long status, bool has_retry_after);

// One answer, as the rate sees it.
struct RateAnswer {
  long status = 0;  // 0: no HTTP response arrived
  bool has_retry_after = false;
  std::chrono::steady_clock::time_point sent;  // when its request started
};

// A change of the adaptive limit, for the -v log.
struct RateChange {
  long status = 0;              // the pushback that lowered the limit; 0 when the limit was lifted
  double sending = 0;           // requests/s started over the last window when the server pushed back
  std::optional<double> limit;  // requests/s from now on; nullopt: no client-side limit
};

// "opctl: the server answered 429 at 160 requests/s: sending at most 80 requests/s".
std::string describe(const RateChange& change);

class AdaptiveRate {
 public:
  using Clock = std::chrono::steady_clock;

  // qps nullopt: adaptive; <= 0: no limit at all; otherwise today's token
  // bucket, qps a second with `burst` saved up, whatever the server answers.
  AdaptiveRate(std::optional<double> qps, int burst);

  // Whether a request may start at `now`; when it may, it counts as started.
  bool try_take(Clock::time_point now);

  // Feeds one answer received at `now`; returns the change of limit it
  // caused, if any. Only the adaptive mode listens.
  std::optional<RateChange> on_answer(const RateAnswer& answer, Clock::time_point now);

  // Requests per second allowed now; nullopt when nothing limits them.
  std::optional<double> limit() const;

 private:
  enum class Mode { none, fixed, adaptive };

  RateChange decrease(long status, Clock::time_point now);
  std::optional<RateChange> grow(Clock::time_point now);
  double sending_rate(Clock::time_point now);
  bool pace(Clock::time_point now);
  void forget_before(Clock::time_point oldest);

  Mode mode_;
  RateLimiter fixed_;
  std::optional<double> limit_;           // adaptive: nullopt until the server pushes back
  std::deque<Clock::time_point> starts_;  // adaptive: within the last window
  std::optional<Clock::time_point> last_decrease_;
  Clock::time_point last_growth_;
  Clock::time_point next_start_;
  double step_ = k_adaptive_min_step;  // requests/s gained per second since the last decrease
  double release_at_ = 0;              // the limit at which there is none again
};

}  // namespace opctl::kube
