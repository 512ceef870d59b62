// The cron parser against a table of known next times. The expected values
// come from a brute-force reference (every UTC minute converted with
// Python's zoneinfo and matched field by field, robfig/cron semantics), not
// from this implementation.
#include <catch2/catch.hpp>

#include "kinds/cron/cron_schedule.hpp"
#include "kinds/kind_time.hpp"

using opctl::kinds::format_time;
using opctl::kinds::parse_time;
using opctl::kinds::cron::CronSchedule;
using opctl::kinds::cron::Seconds;
using opctl::kinds::cron::TimeZone;

namespace {

struct Case {
  const char* expression;
  const char* after;
  const char* zone;
  const char* next;
};

const Case k_cases[] = {
    {"*/15 * * * *", "2025-01-01T00:07:00Z", "UTC", "2025-01-01T00:15:00Z"},
    {"*/15 * * * *", "2025-01-01T00:15:00Z", "UTC", "2025-01-01T00:30:00Z"},
    {"0 0 * * *", "2025-01-01T00:00:00Z", "UTC", "2025-01-02T00:00:00Z"},
    {"0 0 * * *", "2024-12-31T23:59:59Z", "UTC", "2025-01-01T00:00:00Z"},
    {"30 2 * * 1-5", "2025-01-03T03:00:00Z", "UTC", "2025-01-06T02:30:00Z"},
    {"0 9 * jan-mar mon-fri", "2025-03-31T09:00:00Z", "UTC", "2026-01-01T09:00:00Z"},
    {"0 0 13 * 5", "2025-01-01T00:00:00Z", "UTC", "2025-01-03T00:00:00Z"},
    {"0 0 13 * 5", "2025-01-03T00:00:00Z", "UTC", "2025-01-10T00:00:00Z"},
    {"0 0 29 2 *", "2025-01-01T00:00:00Z", "UTC", "2028-02-29T00:00:00Z"},
    {"0 0 31 * *", "2025-04-01T00:00:00Z", "UTC", "2025-05-31T00:00:00Z"},
    {"5 4 * * sun", "2025-06-01T04:05:00Z", "UTC", "2025-06-08T04:05:00Z"},
    {"0 22 * * 1-5/2", "2025-06-03T23:00:00Z", "UTC", "2025-06-04T22:00:00Z"},
    {"10/20 * * * *", "2025-06-01T12:55:00Z", "UTC", "2025-06-01T13:10:00Z"},
    {"0 0,12 1,15 * *", "2025-06-01T12:00:00Z", "UTC", "2025-06-15T00:00:00Z"},
    {"0 0 */2 * *", "2025-06-01T00:00:00Z", "UTC", "2025-06-03T00:00:00Z"},
    {"0 0 */2 * 1", "2025-06-02T00:00:00Z", "UTC", "2025-06-03T00:00:00Z"},
    {"0 0 ? * MON", "2025-06-03T00:00:00Z", "UTC", "2025-06-09T00:00:00Z"},
    {"@yearly", "2025-06-01T00:00:00Z", "UTC", "2026-01-01T00:00:00Z"},
    {"@monthly", "2025-06-01T00:00:00Z", "UTC", "2025-07-01T00:00:00Z"},
    {"@weekly", "2025-06-01T00:00:00Z", "UTC", "2025-06-08T00:00:00Z"},
    {"@daily", "2025-06-01T10:00:00Z", "UTC", "2025-06-02T00:00:00Z"},
    {"@hourly", "2025-06-01T10:00:00Z", "UTC", "2025-06-01T11:00:00Z"},
    {"0 2 * * *", "2025-03-29T12:00:00Z", "Europe/Berlin", "2025-03-31T00:00:00Z"},
    {"30 2 * * *", "2025-03-29T12:00:00Z", "Europe/Berlin", "2025-03-31T00:30:00Z"},
    {"0 3 * * *", "2025-03-29T12:00:00Z", "Europe/Berlin", "2025-03-30T01:00:00Z"},
    {"30 1 * * *", "2025-11-02T04:00:00Z", "America/New_York", "2025-11-02T05:30:00Z"},
    {"30 1 * * *", "2025-11-02T05:30:00Z", "America/New_York", "2025-11-02T06:30:00Z"},
    {"0 1 * * *", "2025-11-02T05:50:00Z", "America/New_York", "2025-11-02T06:00:00Z"},
    {"*/20 * * * *", "2025-11-02T05:45:00Z", "America/New_York", "2025-11-02T06:00:00Z"},
    {"0 12 1 7 *", "2040-01-01T00:00:00Z", "Europe/Berlin", "2040-07-01T10:00:00Z"},
    {"0 12 1 1 *", "2040-06-01T00:00:00Z", "Europe/Berlin", "2041-01-01T11:00:00Z"},
    {"0 0 * * *", "2025-06-01T00:00:00Z", "Asia/Kolkata", "2025-06-01T18:30:00Z"},
    {"0 2 * * *", "2025-10-04T00:00:00Z", "Australia/Lord_Howe", "2025-10-05T15:00:00Z"},
    {"0 9 * * *", "2025-04-05T00:00:00Z", "Australia/Sydney", "2025-04-05T23:00:00Z"},
    {"0 0 1 * *", "2025-12-31T23:00:00Z", "Pacific/Kiritimati", "2026-01-31T10:00:00Z"},
    {"45 23 31 12 *", "2025-06-01T00:00:00Z", "America/Los_Angeles", "2026-01-01T07:45:00Z"},
    {"0 0 29 2 1", "2025-01-01T00:00:00Z", "UTC", "2025-02-03T00:00:00Z"},
};

Seconds at(const std::string& text) {
  return std::chrono::floor<std::chrono::seconds>(*parse_time(text));
}

std::string parse_error(const std::string& expression) {
  try {
    CronSchedule::parse(expression);
  } catch (const opctl::Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("given a table of schedules, zones and times, next_after matches the reference", "[kinds][cron]") {
  for (const auto& entry : k_cases) {
    INFO(entry.expression << " after " << entry.after << " in " << entry.zone);
    auto zone = TimeZone::load(entry.zone);
    auto next = CronSchedule::parse(entry.expression).next_after(at(entry.after), zone);
    REQUIRE(next);
    CHECK(format_time(*next) == entry.next);
  }
}

TEST_CASE("a schedule that can never fire has no next time", "[kinds][cron]") {
  CHECK_FALSE(CronSchedule::parse("0 0 30 2 *").next_after(at("2025-01-01T00:00:00Z"), TimeZone::utc()));
}

TEST_CASE("a 6-field expression is rejected with its 5-field equivalent", "[kinds][cron]") {
  std::string error = parse_error("0 0 * * * *");
  CHECK(error.find("has 6 fields") != std::string::npos);
  CHECK(error.find("\"0 * * * *\"") != std::string::npos);
  std::string with_seconds = parse_error("30 0 2 * * *");
  CHECK(with_seconds.find("\"0 2 * * *\"") != std::string::npos);
  CHECK(with_seconds.find("seconds field \"30\" cannot be kept") != std::string::npos);
}

TEST_CASE("malformed expressions are rejected with the field at fault", "[kinds][cron]") {
  CHECK(parse_error("").find("empty") != std::string::npos);
  CHECK(parse_error("* * * *").find("has 4 fields") != std::string::npos);
  CHECK(parse_error("60 * * * *").find("minute field: 60 is out of range 0-59") != std::string::npos);
  CHECK(parse_error("* 24 * * *").find("hour field") != std::string::npos);
  CHECK(parse_error("* * 0 * *").find("day-of-month field: 0 is out of range 1-31") != std::string::npos);
  CHECK(parse_error("* * * 13 *").find("month field") != std::string::npos);
  CHECK(parse_error("* * * * 7").find("use 0 or sun for Sunday") != std::string::npos);
  CHECK(parse_error("*/0 * * * *").find("step of 0") != std::string::npos);
  CHECK(parse_error("5-2 * * * *").find("starts after it ends") != std::string::npos);
  CHECK(parse_error("* * * foo *").find("not a number or a name (jan-dec)") != std::string::npos);
  CHECK(parse_error("1,,2 * * * *").find("empty list item") != std::string::npos);
  CHECK(parse_error("@every 5 m").find("is not a duration") != std::string::npos);
  CHECK(parse_error("@every").find("@every <duration>") != std::string::npos);
  CHECK(parse_error("@fortnightly").find("unknown macro") != std::string::npos);
  CHECK(parse_error("TZ=UTC 0 0 * * *").find("spec.timeZone") != std::string::npos);
}

TEST_CASE("names are case-insensitive, descriptors exact, as kube-apiserver reads them", "[kinds][cron]") {
  auto upper = CronSchedule::parse("0 0 * JAN MON").next_after(at("2025-06-01T00:00:00Z"), TimeZone::utc());
  auto lower = CronSchedule::parse("0 0 * jan mon").next_after(at("2025-06-01T00:00:00Z"), TimeZone::utc());
  CHECK(upper == lower);
  // robfig/cron compares descriptors as written: kube-apiserver refuses these.
  CHECK(parse_error("@DAILY").find("write it exactly as @daily") != std::string::npos);
  CHECK(parse_error("@daily ").find("write it exactly as @daily") != std::string::npos);
  CHECK(parse_error(" @daily").find("must start the schedule") != std::string::npos);
  CHECK(parse_error("@EVERY 5m").find("@every <duration>") != std::string::npos);
  // Surrounding space around five fields is fine (they are split on whitespace).
  CHECK(CronSchedule::parse(" 0 3 * * * ").next_after(at("2025-06-01T10:00:00Z"), TimeZone::utc()) ==
        at("2025-06-02T03:00:00Z"));
}

TEST_CASE("? means * in every field, as robfig/cron reads it", "[kinds][cron]") {
  CHECK(CronSchedule::parse("? ? * * *").next_after(at("2025-06-01T10:00:30Z"), TimeZone::utc()) ==
        at("2025-06-01T10:01:00Z"));
}

TEST_CASE("@every takes Go durations, whole seconds, at least one", "[kinds][cron]") {
  auto next = [](const char* expression) {
    return CronSchedule::parse(expression).next_after(at("2025-06-01T10:00:00Z"), TimeZone::utc());
  };
  CHECK(next("@every 90m") == at("2025-06-01T11:30:00Z"));
  CHECK(next("@every 1h30m") == at("2025-06-01T11:30:00Z"));
  CHECK(next("@every 1.5h") == at("2025-06-01T11:30:00Z"));
  CHECK(next("@every 2h45m10s") == at("2025-06-01T12:45:10Z"));
  CHECK(next("@every 90.9s") == at("2025-06-01T10:01:30Z"));  // fractions of a second are dropped
  CHECK(next("@every 300ms") == at("2025-06-01T10:00:01Z"));  // under a second counts as one
  CHECK(next("@every 0") == at("2025-06-01T10:00:01Z"));
  CHECK(CronSchedule::parse("@every 90m").interval() == std::chrono::seconds(5400));
  CHECK_FALSE(CronSchedule::parse("@daily").interval());
  for (const char* bad : {"@every 90", "@every m", "@every 5d", "@every .m", "@every 1h 30m", "@every 90m "})
    CHECK(parse_error(bad).find("not a duration") != std::string::npos);
}

TEST_CASE("zones that shift by other than a whole hour, off the hour or at midnight are found",
          "[kinds][cron]") {
  Seconds from = at("2025-01-01T00:00:00Z");
  Seconds to = at("2027-01-01T00:00:00Z");
  auto lord_howe = TimeZone::load("Australia/Lord_Howe").irregular_shift(from, to);  // 30-minute shifts
  REQUIRE(lord_howe);
  CHECK(format_time(*lord_howe) == "2025-04-05T15:00:00Z");  // 02:00 at +11:00 becomes 01:30 at +10:30
  auto chatham = TimeZone::load("Pacific/Chatham").irregular_shift(from, to);  // at 2:45 and 3:45
  REQUIRE(chatham);
  CHECK(format_time(*chatham) == "2025-04-05T14:00:00Z");
  auto santiago = TimeZone::load("America/Santiago").irregular_shift(from, to);  // at midnight
  REQUIRE(santiago);
  CHECK(format_time(*santiago) == "2025-04-06T03:00:00Z");  // 24:00 at -03:00 becomes 23:00 at -04:00
  for (const char* regular :
       {"UTC", "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "America/St_Johns"})
    CHECK_FALSE(TimeZone::load(regular).irregular_shift(from, to));
}

TEST_CASE("unknown and unsafe time zone names are rejected", "[kinds][cron]") {
  CHECK_THROWS_WITH(TimeZone::load("Mars/Olympus_Mons"), Catch::Contains("unknown time zone"));
  CHECK_THROWS_WITH(TimeZone::load("../../etc/passwd"), Catch::Contains("not a time zone name"));
  CHECK_THROWS_WITH(TimeZone::load("/etc/localtime"), Catch::Contains("not a time zone name"));
}

TEST_CASE("a POSIX rule alone gives DST offsets for years past the table", "[kinds][cron]") {
  auto rule = opctl::kinds::cron::PosixRule::parse("CET-1CEST,M3.5.0,M10.5.0/3");
  CHECK(rule.offset_at(at("2100-07-01T00:00:00Z")) == 7200);
  CHECK(rule.offset_at(at("2100-01-01T00:00:00Z")) == 3600);
  auto southern = opctl::kinds::cron::PosixRule::parse("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0");
  CHECK(southern.offset_at(at("2100-01-01T00:00:00Z")) == 39600);
  CHECK(southern.offset_at(at("2100-07-01T00:00:00Z")) == 37800);
}
