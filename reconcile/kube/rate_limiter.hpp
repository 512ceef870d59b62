// A token bucket: `qps` tokens a second, at most `burst` saved up.
#pragma once

#include <chrono>

namespace opctl::kube {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  RateLimiter(double qps, int burst) : qps_(qps), burst_(burst > 0 ? burst : 1), tokens_(burst_) {}

  // Takes a token if one is available at `now`; never blocks.
  bool try_take(Clock::time_point now) {
    if (qps_ <= 0) return true;
    if (started_)
      tokens_ = std::min<double>(burst_, tokens_ + qps_ * std::chrono::duration<double>(now - last_).count());
    started_ = true;
    last_ = now;
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

  double qps() const { return qps_; }

 private:
  double qps_;
  int burst_;
  double tokens_;
  bool started_ = false;
  Clock::time_point last_;
};

}  // namespace opctl::kube
