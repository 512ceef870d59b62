// IANA time zones for cron schedules, read from the system tz database
// (TZif files under $TZDIR or /usr/share/zoneinfo). g++ 12's libstdc++ has
// no std::chrono::locate_zone, and setting TZ for localtime_r would change
// process-wide state, so opctl reads the TZif file itself: the transition
// table, then the POSIX TZ rule in its footer for times after the table.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "model/error.hpp"

namespace opctl::kinds::cron {

using Seconds = std::chrono::sys_seconds;

// A POSIX TZ rule such as "CET-1CEST,M3.5.0,M10.5.0/3" (the TZif footer).
class PosixRule {
 public:
  // Throws Error (invalid_input) when the text is not a rule.
  static PosixRule parse(const std::string& text);
  // UTC offset in seconds at a UTC time.
  long offset_at(Seconds time) const;

  struct Date {  // when DST starts or ends, as a POSIX rule writes it
    enum class Kind { julian_no_leap, julian_zero, month_week_day } kind = Kind::month_week_day;
    int day = 0, week = 0, month = 0;  // Jn / n: day; Mm.w.d: month, week, day (weekday)
    long time = 7200;                  // seconds after local midnight
  };

 private:
  long std_offset_ = 0, dst_offset_ = 0;  // seconds east of UTC
  bool has_dst_ = false;
  Date start_, end_;
};

class TimeZone {
 public:
  static TimeZone utc();
  // Loads an IANA name ("Europe/Berlin"); throws Error (invalid_input) when
  // the name is unknown or unsafe ("../x", absolute paths).
  static TimeZone load(const std::string& name);
  // Parses TZif data (version 1 to 4); throws Error when malformed.
  static TimeZone from_tzif(const std::string& name, const std::string& data);

  const std::string& name() const { return name_; }
  // UTC offset in seconds at a UTC time.
  long offset_at(Seconds time) const;
  // The UTC time of a local wall-clock time: nullopt when the clock skips it
  // (spring forward); the earlier one when it happens twice (fall back).
  std::optional<Seconds> to_utc(std::chrono::local_seconds local) const;
  // Every UTC time that shows this wall-clock time, ascending: none in a
  // gap, two in a repeated hour.
  std::vector<Seconds> all_utc(std::chrono::local_seconds local) const;
  // The first change of UTC offset in [from, to) of a kind robfig/cron
  // misfires around: not a whole hour (Australia/Lord_Howe's 30 minutes),
  // not on the hour (Pacific/Chatham's at 2:45), or at local midnight
  // (America/Santiago's, when a day starts at 01:00 or midnight comes
  // twice); nullopt when there is none.
  std::optional<Seconds> irregular_shift(Seconds from, Seconds to) const;

 private:
  std::string name_;
  std::vector<long long> transitions_;  // UTC seconds, ascending
  std::vector<long> offsets_;           // offset from each transition on
  long initial_offset_ = 0;             // before the first transition
  std::optional<PosixRule> footer_;
};

}  // namespace opctl::kinds::cron
