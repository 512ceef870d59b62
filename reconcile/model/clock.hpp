// The time a pass reads and waits on. Everything that sleeps or reads the
// time (health waits, CRD waits, the custom-kind rounds, the Lease) goes
// through it, so unit tests move time instead of sleeping.
#pragma once

#include <chrono>
#include <thread>

namespace opctl {

class Clock {
 public:
  virtual ~Clock() = default;
  // For deadlines and intervals.
  virtual std::chrono::steady_clock::time_point steady_now() const = 0;
  // For what is written down (renewTime, last run).
  virtual std::chrono::system_clock::time_point wall_now() const = 0;
  // Waits; a fake clock moves its time instead.
  virtual void sleep_for(std::chrono::milliseconds duration) const = 0;
};

class SystemClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point steady_now() const override {
    return std::chrono::steady_clock::now();
  }
  std::chrono::system_clock::time_point wall_now() const override { return std::chrono::system_clock::now(); }
  void sleep_for(std::chrono::milliseconds duration) const override { std::this_thread::sleep_for(duration); }
};

}  // namespace opctl
