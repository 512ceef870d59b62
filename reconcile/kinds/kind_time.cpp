#include "kinds/kind_time.hpp"

#include <fmt/format.h>

#include <cctype>

namespace opctl::kinds {
namespace {

bool read_number(const std::string& text, std::size_t& at, std::size_t digits, int& value) {
  value = 0;
  for (std::size_t i = 0; i < digits; ++i, ++at) {
    if (at >= text.size() || std::isdigit(static_cast<unsigned char>(text[at])) == 0) return false;
    value = value * 10 + (text[at] - '0');
  }
  return true;
}

bool expect(const std::string& text, std::size_t& at, char wanted) {
  if (at >= text.size() || text[at] != wanted) return false;
  ++at;
  return true;
}

}  // namespace

std::string format_time(TimePoint time) {
  auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  auto days = std::chrono::floor<std::chrono::days>(seconds);
  std::chrono::year_month_day date{days};
  std::chrono::hh_mm_ss clock{seconds - days};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                     clock.hours().count(), clock.minutes().count(), clock.seconds().count());
}

std::optional<TimePoint> parse_time(const std::string& text) {
  std::size_t at = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_number(text, at, 4, year) || !expect(text, at, '-') || !read_number(text, at, 2, month) ||
      !expect(text, at, '-') || !read_number(text, at, 2, day) || at >= text.size() ||
      (text[at] != 'T' && text[at] != 't' && text[at] != ' '))
    return std::nullopt;
  ++at;
  if (!read_number(text, at, 2, hour) || !expect(text, at, ':') || !read_number(text, at, 2, minute) ||
      !expect(text, at, ':') || !read_number(text, at, 2, second))
    return std::nullopt;
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0)
      ++at;
  }
  int offset_minutes = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int sign = text[at] == '-' ? -1 : 1;
    int hours = 0, minutes = 0;
    ++at;
    if (!read_number(text, at, 2, hours) || !expect(text, at, ':') || !read_number(text, at, 2, minutes))
      return std::nullopt;
    offset_minutes = sign * (hours * 60 + minutes);
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                                   std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  auto local = std::chrono::sys_days(date) + std::chrono::hours(hour) + std::chrono::minutes(minute) +
               std::chrono::seconds(second);
  return TimePoint(local - std::chrono::minutes(offset_minutes));
}

std::optional<std::chrono::seconds> parse_age(const std::string& text) {
  long total = 0;
  std::size_t at = 0;
  if (text.empty()) return std::nullopt;
  while (at < text.size()) {
    std::size_t start = at;
    long amount = 0;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) {
      amount = amount * 10 + (text[at] - '0');
      if (amount > 1'000'000'000) return std::nullopt;
      ++at;
    }
    if (at == start || at == text.size()) return std::nullopt;
    switch (text[at++]) {
      case 'w':
        total += amount * 7 * 86400;
        break;
      case 'd':
        total += amount * 86400;
        break;
      case 'h':
        total += amount * 3600;
        break;
      case 'm':
        total += amount * 60;
        break;
      case 's':
        total += amount;
        break;
      default:
        return std::nullopt;
    }
  }
  if (total <= 0) return std::nullopt;
  return std::chrono::seconds(total);
}

std::string format_age(std::chrono::seconds age) {
  long seconds = age.count();
  for (auto [unit, size] :
       {std::pair{'w', 604800L}, std::pair{'d', 86400L}, std::pair{'h', 3600L}, std::pair{'m', 60L}})
    if (seconds >= size && seconds % size == 0) return fmt::format("{}{}", seconds / size, unit);
  return fmt::format("{}s", seconds);
}

}  // namespace opctl::kinds
