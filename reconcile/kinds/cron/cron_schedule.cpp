#include "kinds/cron/cron_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <string_view>

#include "model/ascii_case.hpp"

namespace opctl::kinds::cron {
namespace {

using namespace std::chrono;

struct FieldSpec {
  const char* name;
  int low, high;
  std::vector<std::string> names;  // names[i] means low + i
};

const FieldSpec k_minute{"minute", 0, 59, {}};
const FieldSpec k_hour{"hour", 0, 23, {}};
const FieldSpec k_day{"day-of-month", 1, 31, {}};
const FieldSpec k_month{
    "month", 1, 12, {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}};
const FieldSpec k_weekday{"day-of-week", 0, 6, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}};

[[noreturn]] void fail(const std::string& message) {
  throw Error(ErrorCategory::invalid_input, message);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator))
    parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

std::vector<std::string> fields_of(const std::string& expression) {
  std::vector<std::string> fields;
  std::istringstream in(expression);
  for (std::string field; in >> field;)
    fields.push_back(field);
  return fields;
}

int value_of(const std::string& text, const FieldSpec& spec) {
  std::string lower = model::ascii_lower(text);
  for (std::size_t i = 0; i < spec.names.size(); ++i)
    if (lower == spec.names[i]) return spec.low + static_cast<int>(i);
  if (text.empty() ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
    fail(fmt::format(
        "{} field: \"{}\" is not a number{}", spec.name, text,
        spec.names.empty() ? "" : fmt::format(" or a name ({}-{})", spec.names.front(), spec.names.back())));
  if (text.size() > 4)
    fail(fmt::format("{} field: {} is out of range {}-{}", spec.name, text, spec.low, spec.high));
  int value = std::stoi(text);
  if (value < spec.low || value > spec.high) {
    std::string hint =
        &spec == &k_weekday && value == 7 ? " (use 0 or sun for Sunday: Kubernetes rejects 7)" : "";
    fail(fmt::format("{} field: {} is out of range {}-{}{}", spec.name, value, spec.low, spec.high, hint));
  }
  return value;
}

// One field: a comma list of `*`, `?`, `a`, `a-b`, each with an optional `/step`.
// Returns whether the field counts as unrestricted (star).
template <std::size_t N>
bool parse_field(const std::string& text, const FieldSpec& spec, std::bitset<N>& bits) {
  bool star = false;
  for (const auto& part : split(text, ',')) {
    if (part.empty()) fail(fmt::format("{} field: empty list item in \"{}\"", spec.name, text));
    auto pieces = split(part, '/');
    if (pieces.size() > 2) fail(fmt::format("{} field: \"{}\" has more than one step", spec.name, part));
    const std::string& range = pieces[0];
    int step = 1;
    if (pieces.size() == 2) {
      const std::string& step_text = pieces[1];
      if (step_text.empty() || step_text.size() > 4 ||
          !std::all_of(step_text.begin(), step_text.end(),
                       [](unsigned char c) { return std::isdigit(c) != 0; }))
        fail(fmt::format("{} field: step \"{}\" is not a number", spec.name, step_text));
      step = std::stoi(step_text);
      if (step == 0) fail(fmt::format("{} field: a step of 0 never advances", spec.name));
    }
    int low = spec.low, high = spec.high;
    if (range == "*" || range == "?") {
      // robfig/cron reads `?` as `*` in every field, so kube-apiserver accepts it anywhere.
      if (step == 1) star = true;
    } else if (auto dash = range.find('-'); dash != std::string::npos) {
      low = value_of(range.substr(0, dash), spec);
      high = value_of(range.substr(dash + 1), spec);
      if (low > high) fail(fmt::format("{} field: range \"{}\" starts after it ends", spec.name, range));
    } else {
      low = value_of(range, spec);
      // "a/step" means from a to the end, stepping (as CronJobs read it).
      if (pieces.size() == 1) high = low;
    }
    for (int value = low; value <= high; value += step)
      bits.set(static_cast<std::size_t>(value));
  }
  return star;
}

const std::map<std::string, std::string> k_macros = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},  {"@midnight", "0 0 * * *"}, {"@hourly", "0 * * * *"}};

// Go's time.ParseDuration, which robfig/cron reads "@every" with: a sign,
// then numbers (with a fraction) each followed by a unit: "90m", "1h30m",
// "1.5h", "300ms". nullopt when Go would refuse it.
std::optional<long double> go_duration_seconds(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return 0.0L;
  if (text.empty()) return std::nullopt;
  static const std::map<std::string, long double, std::less<>> k_units = {
      {"ns", 1e-9L}, {"us", 1e-6L}, {"\u00b5s", 1e-6L}, {"\u03bcs", 1e-6L},
      {"ms", 1e-3L}, {"s", 1.0L},   {"m", 60.0L},       {"h", 3600.0L}};
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  long double total = 0;
  while (!text.empty()) {
    std::size_t end = 0;
    bool digits = false;
    while (end < text.size() && is_digit(text[end]))
      ++end, digits = true;
    if (end < text.size() && text[end] == '.') {
      ++end;
      while (end < text.size() && is_digit(text[end]))
        ++end, digits = true;
    }
    if (!digits) return std::nullopt;
    long double number = std::stold(std::string(text.substr(0, end)));
    text.remove_prefix(end);
    std::size_t unit_end = 0;
    while (unit_end < text.size() && !is_digit(text[unit_end]) && text[unit_end] != '.')
      ++unit_end;
    auto unit = k_units.find(text.substr(0, unit_end));
    if (unit == k_units.end()) return std::nullopt;  // no unit, or an unknown one
    total += number * unit->second;
    text.remove_prefix(unit_end);
  }
  if (total > 9.2e9L) return std::nullopt;  // beyond an int64 of nanoseconds
  return negative ? -total : total;
}

const char* const k_known_macros =
    "@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>";

// A descriptor as robfig/cron reads one: the whole expression, exactly,
// lower case, with no space around it ("@DAILY" and "@daily " are refused).
// Returns the 5-field equivalent, or sets `interval` for "@every".
std::string expand_descriptor(const std::string& expression, std::optional<std::chrono::seconds>& interval) {
  if (auto found = k_macros.find(expression); found != k_macros.end()) return found->second;
  constexpr std::string_view k_every = "@every ";
  if (expression.starts_with(k_every)) {
    std::string duration = expression.substr(k_every.size());
    auto parsed = go_duration_seconds(duration);
    if (!parsed)
      fail(fmt::format("\"{}\": \"{}\" is not a duration (Go's syntax: 90m, 1h30m, 1.5h, 45s; no spaces)",
                       expression, duration));
    // As robfig/cron: under a second counts as one, and fractions of a second are dropped.
    auto whole = static_cast<long long>(*parsed);
    interval = std::chrono::seconds(std::max(whole, 1LL));
    return "";
  }
  std::string lower = model::ascii_lower(expression);
  while (!lower.empty() && std::isspace(static_cast<unsigned char>(lower.back())))
    lower.pop_back();
  if (k_macros.contains(lower) || lower.starts_with("@every"))
    fail(fmt::format(
        "\"{}\": write it exactly as {}{} (Kubernetes refuses any other spelling)", expression,
        lower.starts_with("@every") ? "@every <duration>" : lower,
        lower.starts_with("@every") ? ", one space, no space after" : ", lower case, no space after"));
  fail(fmt::format("unknown macro \"{}\" (known: {})", expression, k_known_macros));
}

[[noreturn]] void reject_six_fields(const std::vector<std::string>& fields) {
  std::vector<std::string> rest(fields.begin() + 1, fields.end());
  std::string equivalent = fmt::format("{}", fmt::join(rest, " "));
  std::string seconds_note =
      fields[0] == "0"
          ? ""
          : fmt::format(" (the seconds field \"{}\" cannot be kept: runs start on whole minutes)", fields[0]);
  fail(fmt::format(
      "\"{}\" has 6 fields, but schedules have 5 (minute hour day-of-month month day-of-week) and no "
      "seconds field; read seconds-first, it is \"{}\"{}",
      fmt::join(fields, " "), equivalent, seconds_note));
}

}  // namespace

CronSchedule CronSchedule::parse(const std::string& expression) {
  CronSchedule schedule;
  schedule.expression_ = expression;
  auto trimmed = fields_of(expression);
  if (trimmed.empty()) fail("the schedule is empty");
  if (trimmed[0].starts_with("TZ=") || trimmed[0].starts_with("CRON_TZ="))
    fail("a time zone inside the schedule is not supported: set spec.timeZone instead");
  if (expression.starts_with("@")) {
    std::string fields = expand_descriptor(expression, schedule.interval_);
    if (schedule.interval_) return schedule;
    trimmed = fields_of(fields);
  } else if (trimmed[0].starts_with("@")) {
    fail(fmt::format("\"{}\": a macro such as {} must start the schedule, with no space before it",
                     expression, trimmed[0]));
  }
  if (trimmed.size() == 6) reject_six_fields(trimmed);
  if (trimmed.size() != 5)
    fail(fmt::format("\"{}\" has {} fields; a schedule has 5: minute hour day-of-month month day-of-week",
                     expression, trimmed.size()));
  parse_field(trimmed[0], k_minute, schedule.minutes_);
  parse_field(trimmed[1], k_hour, schedule.hours_);
  schedule.days_star_ = parse_field(trimmed[2], k_day, schedule.days_);
  parse_field(trimmed[3], k_month, schedule.months_);
  schedule.weekdays_star_ = parse_field(trimmed[4], k_weekday, schedule.weekdays_);
  return schedule;
}

bool CronSchedule::day_matches(year_month_day date) const {
  if (!months_.test(static_cast<unsigned>(date.month()))) return false;
  bool day = days_.test(static_cast<unsigned>(date.day()));
  bool weekday = weekdays_.test(std::chrono::weekday(sys_days(date)).c_encoding());
  if (days_star_ || weekdays_star_) return day && weekday;
  return day || weekday;
}

std::optional<Seconds> CronSchedule::next_after(Seconds after, const TimeZone& zone) const {
  if (interval_) return after + *interval_;
  // Walk wall-clock times from a little before `after` (a repeated hour can
  // put an earlier wall-clock time later in UTC), keeping the earliest UTC
  // time after `after`; stop a few hours of wall clock past the first hit.
  constexpr auto k_window = hours(3);
  constexpr int k_days_searched = 366 * 9;  // 29 February can be 8 years away
  local_seconds start{(after + seconds(zone.offset_at(after))).time_since_epoch()};
  start = floor<minutes>(start) - k_window;
  local_days day = floor<days>(start);
  std::optional<Seconds> best;
  std::optional<local_seconds> first_hit;
  for (int n = 0; n < k_days_searched; ++n, day += days(1)) {
    if (first_hit && local_seconds(day) > *first_hit + k_window) break;
    if (!day_matches(year_month_day{sys_days(day.time_since_epoch())})) continue;
    for (int hour = 0; hour < 24; ++hour) {
      if (!hours_.test(static_cast<std::size_t>(hour))) continue;
      for (int minute = 0; minute < 60; ++minute) {
        if (!minutes_.test(static_cast<std::size_t>(minute))) continue;
        local_seconds local = local_seconds(day) + hours(hour) + minutes(minute);
        if (local < start) continue;
        if (first_hit && local > *first_hit + k_window) return best;
        for (auto utc : zone.all_utc(local)) {
          if (utc <= after || (best && utc >= *best)) continue;
          best = utc;
          if (!first_hit) first_hit = local;
        }
      }
    }
  }
  return best;
}

}  // namespace opctl::kinds::cron
