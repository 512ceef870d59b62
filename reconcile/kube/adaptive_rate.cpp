#include "kube/adaptive_rate.hpp"

#include <fmt/format.h>

#include <algorithm>

// Why these constants:
// - The window is one second: the rate "achieved" is what was started over the
//   last second, and the limit is lowered at most once per window, for an
//   answer to a request sent after the last decrease (older answers describe
//   the rate already corrected). APF's own Retry-After is one second too, so a
//   rejected request comes back on that rhythm. Answers that arrive by the
//   dozen from one overloaded moment cut the rate once, not a dozen times.
// - Halving is the classic multiplicative decrease (TCP, AIMD): it converges
//   on a fair share when several clients back off together.
// - The floor, 5 requests/s, is client-go's long-time default QPS: a rate
//   every apiserver takes, so the limit never starves a pass; a server that
//   still pushes back delays each request by its Retry-After anyway.
// - The increase is additive: it regains the rate that was pushed back in ten
//   seconds (but at least 10 requests/s per second, so a low limit recovers
//   in seconds, not minutes), and only over time whose answers were not
//   pushback. Credit for a gap between answers is capped at one window, so an
//   idle pause between batches does not count as proof the server recovered.
// - Twice the rate that was pushed back is "well above" it: there the limit no
//   longer binds (concurrency does) and is dropped, as if nothing had happened.
// - A burst of 100 ms of starts is allowed, because the transport looks at the
//   rate every 50 ms at most, and no saved-up starts survive a decrease.
namespace opctl::kube {
namespace {

constexpr std::chrono::milliseconds k_pacing_slack{100};

double seconds(std::chrono::steady_clock::duration duration) {
  return std::chrono::duration<double>(duration).count();
}

std::chrono::steady_clock::duration interval(double rate) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(1 / rate));
}

}  // namespace

bool is_pushback(long status, bool has_retry_after) {
  return status == 429 || (status == 503 && has_retry_after);
}

std::string describe(const RateChange& change) {
  if (!change.limit) return "opctl: the server has stopped pushing back: no client-side rate limit again";
  return fmt::format(
      "opctl: the server answered {}{} at {:.0f} requests/s: sending at most {:.0f} requests/s",
      change.status, change.status == 429 ? "" : " with Retry-After", change.sending, *change.limit);
}

AdaptiveRate::AdaptiveRate(std::optional<double> qps, int burst)
    : mode_(!qps       ? Mode::adaptive
            : *qps > 0 ? Mode::fixed
                       : Mode::none),
      fixed_(qps.value_or(0), burst) {}

bool AdaptiveRate::try_take(Clock::time_point now) {
  switch (mode_) {
    case Mode::none:
      return true;
    case Mode::fixed:
      return fixed_.try_take(now);
    case Mode::adaptive:
      break;
  }
  forget_before(now - k_adaptive_window);
  if (limit_ && !pace(now)) return false;
  starts_.push_back(now);
  return true;
}

std::optional<RateChange> AdaptiveRate::on_answer(const RateAnswer& answer, Clock::time_point now) {
  if (mode_ != Mode::adaptive) return std::nullopt;
  if (is_pushback(answer.status, answer.has_retry_after)) {
    last_growth_ = now;  // the time up to a pushback earns no increase
    bool corrected =
        last_decrease_ && (answer.sent < *last_decrease_ || now - *last_decrease_ < k_adaptive_window);
    if (corrected) return std::nullopt;
    return decrease(answer.status, now);
  }
  if (answer.status == 0 || answer.status >= 500) return std::nullopt;  // a failure says nothing of the rate
  return grow(now);
}

std::optional<double> AdaptiveRate::limit() const {
  switch (mode_) {
    case Mode::none:
      return std::nullopt;
    case Mode::fixed:
      return fixed_.qps();
    case Mode::adaptive:
      break;
  }
  return limit_;
}

RateChange AdaptiveRate::decrease(long status, Clock::time_point now) {
  double sending = sending_rate(now);
  double pushed_back_at = limit_ ? std::min(*limit_, sending) : sending;
  double next = std::max(k_adaptive_min_rate, pushed_back_at / 2);
  limit_ = next;
  step_ = std::max(k_adaptive_min_step, next / static_cast<double>(k_adaptive_recovery.count()));
  release_at_ = k_adaptive_release_factor * std::max(pushed_back_at, next);
  last_decrease_ = now;
  last_growth_ = now;
  next_start_ = now + interval(next);  // the requests still in flight are this moment's burst
  return {status, sending, limit_};
}

std::optional<RateChange> AdaptiveRate::grow(Clock::time_point now) {
  if (!limit_) return std::nullopt;
  auto credited = std::min<Clock::duration>(now - last_growth_, k_adaptive_window);
  if (credited > Clock::duration::zero()) *limit_ += step_ * seconds(credited);
  last_growth_ = now;
  if (*limit_ < release_at_) return std::nullopt;
  limit_.reset();
  return RateChange{};
}

// Requests started over the last window, per second. A window that began
// less than k_adaptive_min_span ago counts as that long, so the first few
// requests of a burst do not read as thousands a second.
double AdaptiveRate::sending_rate(Clock::time_point now) {
  forget_before(now - k_adaptive_window);
  if (starts_.empty()) return 0;
  auto span = std::clamp<Clock::duration>(now - starts_.front(), k_adaptive_min_span, k_adaptive_window);
  return static_cast<double>(starts_.size()) / seconds(span);
}

// The limit as evenly spaced starts (a virtual-scheduling token bucket): one
// every 1/limit seconds, with at most k_pacing_slack of them saved up.
bool AdaptiveRate::pace(Clock::time_point now) {
  if (now < next_start_) return false;
  next_start_ = std::max(next_start_, now - k_pacing_slack) + interval(*limit_);
  return true;
}

void AdaptiveRate::forget_before(Clock::time_point oldest) {
  while (!starts_.empty() && starts_.front() < oldest)
    starts_.pop_front();
}

}  // namespace opctl::kube
