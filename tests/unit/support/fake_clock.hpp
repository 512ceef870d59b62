// A Clock whose time moves only when told, or when the code under test
// sleeps: a wait of minutes takes no time in a unit test.
#pragma once

#include <chrono>
#include <functional>

#include "model/clock.hpp"

namespace opctl::testing {

class FakeClock : public Clock {
 public:
  std::chrono::steady_clock::time_point steady_now() const override { return steady_; }
  std::chrono::system_clock::time_point wall_now() const override { return wall_; }
  void sleep_for(std::chrono::milliseconds duration) const override {
    slept_ += duration;
    advance(duration);
    if (on_sleep) on_sleep();
  }

  void advance(std::chrono::milliseconds by) const {
    steady_ += by;
    wall_ += by;
  }
  void set_wall(std::chrono::system_clock::time_point wall) const { wall_ = wall; }
  std::chrono::milliseconds slept() const { return slept_; }

  // Runs after every sleep: a test changes the world "while" the code waits.
  std::function<void()> on_sleep;

 private:
  mutable std::chrono::steady_clock::time_point steady_{std::chrono::hours(1000)};
  mutable std::chrono::system_clock::time_point wall_{
      std::chrono::sys_days{std::chrono::year{2026} / 12 / 1}};
  mutable std::chrono::milliseconds slept_{0};
};

}  // namespace opctl::testing
