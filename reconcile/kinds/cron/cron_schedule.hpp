// Cron schedules as Kubernetes CronJobs read them: kube-apiserver and the
// CronJob controller use robfig/cron v3's standard parser. Five fields —
// minute hour day-of-month month day-of-week — with `*`, `?` (day fields),
// ranges, steps, lists and month and weekday names (any case); or, as the
// whole expression, exactly one of the descriptors @yearly @annually
// @monthly @weekly @daily @midnight @hourly, or "@every <Go duration>"
// (lower case, no surrounding space: the parser refuses "@DAILY" and
// " @daily", and so does opctl). When both day fields are restricted a day
// matches either (Vixie cron's OR); a field counts as unrestricted when it is
// `*` or `?` without a step above 1.
//
// next_after() is the correct wall-clock computation in the schedule's zone.
// robfig/cron assumes daylight-saving shifts of a whole hour, on the hour,
// away from midnight; in zones where that is false (Australia/Lord_Howe
// shifts by 30 minutes, Pacific/Chatham at 2:45, America/Santiago at
// midnight) the CronJob controller can fire at other times around a shift
// (tests/cron_parity measures it). TimeZone::irregular_shift() finds such
// zones, and `opctl validate` warns about them.
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
  // The interval of "@every <duration>" (whole seconds, at least one); its
  // next time is `after` plus the interval, as robfig/cron's; nullopt for
  // a calendar schedule.
  const std::optional<std::chrono::seconds>& interval() const { return interval_; }

 private:
  bool day_matches(std::chrono::year_month_day date) const;

  std::string expression_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1..31
  std::bitset<13> months_;   // 1..12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool days_star_ = false, weekdays_star_ = false;
  std::optional<std::chrono::seconds> interval_;
};

}  // namespace opctl::kinds::cron
