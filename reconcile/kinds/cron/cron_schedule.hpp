// Cron schedules as Kubernetes CronJobs read them (robfig/cron's standard
// parser): five fields — minute hour day-of-month month day-of-week — with
// `*`, `?` (day fields), ranges, steps, lists, month and weekday names and the
// macros @yearly @annually @monthly @weekly @daily @midnight @hourly. When both
// day fields are restricted a day matches either (Vixie cron's OR); a field
// counts as unrestricted when it is `*` or `?` without a step above 1.
//
// A 6-field expression (seconds first, as some operators read it) is rejected
// with its 5-field equivalent: silently reading one as the other is the
// "cron trap" that turns a daily backup into an hourly one.
#pragma once

#include <bitset>
#include <optional>
#include <string>
#include <vector>

#include "kinds/cron/time_zone.hpp"
#include "model/error.hpp"

namespace opctl::kinds::cron {

class CronSchedule {
 public:
  // Throws Error (invalid_input) with a message a user can act on.
  static CronSchedule parse(const std::string& expression);

  // The first time strictly after `after` the schedule fires, in `zone`'s
  // wall clock: local times the clock skips (spring forward) never fire, and
  // local times that happen twice (fall back) fire twice, as CronJobs do.
  // nullopt when it never fires (30 February).
  std::optional<Seconds> next_after(Seconds after, const TimeZone& zone) const;

  const std::string& expression() const { return expression_; }

 private:
  bool day_matches(std::chrono::year_month_day date) const;

  std::string expression_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;    // 1..31
  std::bitset<13> months_;  // 1..12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool days_star_ = false, weekdays_star_ = false;
};

}  // namespace opctl::kinds::cron
