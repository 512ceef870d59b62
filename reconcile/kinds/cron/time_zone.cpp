#include "kinds/cron/time_zone.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace opctl::kinds::cron {
namespace {

using namespace std::chrono;

[[noreturn]] void refuse_zone(const std::string& message) {
  throw Error(ErrorCategory::invalid_input, message);
}

// Reads big-endian integers from TZif data, failing on truncation.
class Reader {
 public:
  Reader(const std::string& data, const std::string& name) : data_(data), name_(name) {}
  long long integer(std::size_t bytes) {
    if (at_ + bytes > data_.size()) refuse_zone(fmt::format("time zone \"{}\": truncated TZif data", name_));
    unsigned long long value = 0;
    for (std::size_t i = 0; i < bytes; ++i)
      value = (value << 8) | static_cast<unsigned char>(data_[at_++]);
    if (bytes < 8 && (value >> (bytes * 8 - 1)) != 0)
      return static_cast<long long>(value) - (1LL << (bytes * 8));
    return static_cast<long long>(value);
  }
  void skip(std::size_t bytes) {
    if (at_ + bytes > data_.size()) refuse_zone(fmt::format("time zone \"{}\": truncated TZif data", name_));
    at_ += bytes;
  }
  std::size_t position() const { return at_; }

 private:
  const std::string& data_;
  const std::string& name_;
  std::size_t at_ = 0;
};

struct Header {
  char version = 0;
  long long isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;
};

Header read_header(Reader& reader, const std::string& data, const std::string& name) {
  std::size_t start = reader.position();
  if (data.compare(start, 4, "TZif") != 0)
    refuse_zone(fmt::format("time zone \"{}\" is not a TZif file", name));
  Header header;
  reader.skip(4);
  header.version = static_cast<char>(reader.integer(1));
  reader.skip(15);
  header.isutcnt = reader.integer(4);
  header.isstdcnt = reader.integer(4);
  header.leapcnt = reader.integer(4);
  header.timecnt = reader.integer(4);
  header.typecnt = reader.integer(4);
  header.charcnt = reader.integer(4);
  if (header.typecnt < 1 || header.timecnt < 0 || header.charcnt < 0 || header.leapcnt < 0)
    refuse_zone(fmt::format("time zone \"{}\": malformed TZif header", name));
  return header;
}

// Parses [+-]hh[:mm[:ss]] at `at`; POSIX hours may reach 167 in TZif v3.
long parse_clock(const std::string& text, std::size_t& at) {
  int sign = 1;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) sign = text[at++] == '-' ? -1 : 1;
  long parts[3] = {0, 0, 0};
  for (int part = 0; part < 3; ++part) {
    if (part > 0) {
      if (at >= text.size() || text[at] != ':') break;
      ++at;
    }
    std::size_t start = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0)
      ++at;
    if (at == start || at - start > 3) refuse_zone("malformed time in POSIX TZ rule \"" + text + "\"");
    parts[part] = std::stol(text.substr(start, at - start));
  }
  return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
}

std::string parse_abbreviation(const std::string& text, std::size_t& at) {
  std::size_t start = at;
  if (at < text.size() && text[at] == '<') {
    auto close = text.find('>', at);
    if (close == std::string::npos) refuse_zone("unterminated <name> in POSIX TZ rule \"" + text + "\"");
    at = close + 1;
    return text.substr(start + 1, close - start - 1);
  }
  while (at < text.size() && std::isalpha(static_cast<unsigned char>(text[at])) != 0)
    ++at;
  if (at - start < 3) refuse_zone("malformed zone name in POSIX TZ rule \"" + text + "\"");
  return text.substr(start, at - start);
}

PosixRule::Date parse_date(const std::string& text, std::size_t& at) {
  PosixRule::Date date;
  auto number = [&]() {
    std::size_t start = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0)
      ++at;
    if (at == start) refuse_zone("malformed date in POSIX TZ rule \"" + text + "\"");
    return std::stoi(text.substr(start, at - start));
  };
  if (at < text.size() && text[at] == 'M') {
    ++at;
    date.kind = PosixRule::Date::Kind::month_week_day;
    date.month = number();
    if (at >= text.size() || text[at++] != '.')
      refuse_zone("malformed Mm.w.d in POSIX TZ rule \"" + text + "\"");
    date.week = number();
    if (at >= text.size() || text[at++] != '.')
      refuse_zone("malformed Mm.w.d in POSIX TZ rule \"" + text + "\"");
    date.day = number();
    if (date.month < 1 || date.month > 12 || date.week < 1 || date.week > 5 || date.day > 6)
      refuse_zone("out-of-range Mm.w.d in POSIX TZ rule \"" + text + "\"");
  } else if (at < text.size() && text[at] == 'J') {
    ++at;
    date.kind = PosixRule::Date::Kind::julian_no_leap;
    date.day = number();
  } else {
    date.kind = PosixRule::Date::Kind::julian_zero;
    date.day = number();
  }
  if (at < text.size() && text[at] == '/') {
    ++at;
    date.time = parse_clock(text, at);
  }
  return date;
}

// Local midnight of the rule's date in `year`, in days since the epoch.
sys_days date_in_year(const PosixRule::Date& date, int year) {
  year_month_day january_first{std::chrono::year(year), January, 1d};
  sys_days first = january_first;
  switch (date.kind) {
    case PosixRule::Date::Kind::julian_no_leap: {
      int offset = date.day - 1;
      if (std::chrono::year(year).is_leap() && date.day >= 60) ++offset;
      return first + days(offset);
    }
    case PosixRule::Date::Kind::julian_zero:
      return first + days(date.day);
    case PosixRule::Date::Kind::month_week_day: {
      sys_days month_start =
          year_month_day{std::chrono::year(year), month(static_cast<unsigned>(date.month)), 1d};
      unsigned first_weekday = weekday(month_start).c_encoding();
      int shift = (date.day - static_cast<int>(first_weekday) + 7) % 7;
      sys_days day = month_start + days(shift + (date.week - 1) * 7);
      year_month_day found{day};
      if (found.month() != month(static_cast<unsigned>(date.month))) day -= days(7);
      return day;
    }
  }
  return first;
}

}  // namespace

PosixRule PosixRule::parse(const std::string& text) {
  PosixRule rule;
  std::size_t at = 0;
  parse_abbreviation(text, at);
  rule.std_offset_ = -parse_clock(text, at);
  if (at == text.size()) return rule;
  parse_abbreviation(text, at);
  rule.has_dst_ = true;
  rule.dst_offset_ = rule.std_offset_ + 3600;
  if (at < text.size() && text[at] != ',') rule.dst_offset_ = -parse_clock(text, at);
  if (at == text.size()) {
    // No dates: the US rules POSIX assumes.
    rule.start_ = {Date::Kind::month_week_day, 0, 2, 3, 7200};
    rule.end_ = {Date::Kind::month_week_day, 0, 1, 11, 7200};
    return rule;
  }
  if (text[at++] != ',') refuse_zone("malformed POSIX TZ rule \"" + text + "\"");
  rule.start_ = parse_date(text, at);
  if (at >= text.size() || text[at++] != ',') refuse_zone("malformed POSIX TZ rule \"" + text + "\"");
  rule.end_ = parse_date(text, at);
  if (at != text.size()) refuse_zone("trailing text in POSIX TZ rule \"" + text + "\"");
  return rule;
}

long PosixRule::offset_at(Seconds time) const {
  if (!has_dst_) return std_offset_;
  int year = static_cast<int>(year_month_day{floor<days>(time + seconds(std_offset_))}.year());
  // DST starts at a standard-time wall clock and ends at a daylight one.
  auto start = sys_seconds(date_in_year(start_, year)) + seconds(start_.time - std_offset_);
  auto end = sys_seconds(date_in_year(end_, year)) + seconds(end_.time - dst_offset_);
  bool dst = start < end ? (time >= start && time < end) : !(time >= end && time < start);
  return dst ? dst_offset_ : std_offset_;
}

TimeZone TimeZone::utc() {
  TimeZone zone;
  zone.name_ = "UTC";
  return zone;
}

TimeZone TimeZone::load(const std::string& name) {
  if (name.empty() || name == "UTC" || name == "Etc/UTC") return utc();
  bool safe = name.front() != '/' && name.find("..") == std::string::npos &&
              std::all_of(name.begin(), name.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '/' || c == '_' || c == '-' ||
                       c == '+';
              });
  if (!safe) refuse_zone(fmt::format("\"{}\" is not a time zone name such as Europe/Berlin", name));
  const char* dir = std::getenv("TZDIR");
  std::string path = std::string(dir != nullptr && dir[0] != '\0' ? dir : "/usr/share/zoneinfo") + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse_zone(fmt::format("unknown time zone \"{}\" (not in the tz database at {})", name, path));
  std::ostringstream data;
  data << in.rdbuf();
  return from_tzif(name, data.str());
}

TimeZone TimeZone::from_tzif(const std::string& name, const std::string& data) {
  Reader reader(data, name);
  Header header = read_header(reader, data, name);
  std::size_t time_size = 4;
  if (header.version >= '2') {
    // Skip the 32-bit block; the 64-bit one after the second header wins.
    reader.skip(static_cast<std::size_t>(header.timecnt * 5 + header.typecnt * 6 + header.charcnt +
                                         header.leapcnt * 8 + header.isstdcnt + header.isutcnt));
    header = read_header(reader, data, name);
    time_size = 8;
  }
  TimeZone zone;
  zone.name_ = name;
  std::vector<long long> times;
  for (long long i = 0; i < header.timecnt; ++i)
    times.push_back(reader.integer(time_size));
  std::vector<long long> indices;
  for (long long i = 0; i < header.timecnt; ++i)
    indices.push_back(reader.integer(1));
  std::vector<long> type_offsets;
  for (long long i = 0; i < header.typecnt; ++i) {
    type_offsets.push_back(static_cast<long>(reader.integer(4)));
    reader.skip(2);
  }
  reader.skip(static_cast<std::size_t>(header.charcnt + header.leapcnt * (time_size + 4) + header.isstdcnt +
                                       header.isutcnt));
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= header.typecnt)
      refuse_zone(fmt::format("time zone \"{}\": bad type index", name));
    zone.transitions_.push_back(times[i]);
    zone.offsets_.push_back(type_offsets[static_cast<std::size_t>(indices[i])]);
  }
  zone.initial_offset_ = type_offsets.front();
  if (header.version >= '2' && reader.position() < data.size() && data[reader.position()] == '\n') {
    auto end = data.find('\n', reader.position() + 1);
    std::string footer = data.substr(
        reader.position() + 1, end == std::string::npos ? std::string::npos : end - reader.position() - 1);
    if (!footer.empty()) zone.footer_ = PosixRule::parse(footer);
  }
  return zone;
}

long TimeZone::offset_at(Seconds time) const {
  long long t = time.time_since_epoch().count();
  if (transitions_.empty() || t < transitions_.front()) {
    if (transitions_.empty() && footer_) return footer_->offset_at(time);
    return initial_offset_;
  }
  if (t >= transitions_.back() && footer_) return footer_->offset_at(time);
  auto after = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  return offsets_[static_cast<std::size_t>(after - transitions_.begin() - 1)];
}

std::optional<Seconds> TimeZone::to_utc(local_seconds local) const {
  auto all = all_utc(local);
  if (all.empty()) return std::nullopt;
  return all.front();
}

std::vector<Seconds> TimeZone::all_utc(local_seconds local) const {
  Seconds naive{local.time_since_epoch()};
  // A wall-clock time maps to UTC under one of the offsets in force around
  // it; two transitions are never this close together.
  std::vector<Seconds> found;
  for (auto probe : {naive - hours(36), naive + hours(36)}) {
    long offset = offset_at(probe);
    Seconds candidate = naive - seconds(offset);
    if (offset_at(candidate) == offset && std::find(found.begin(), found.end(), candidate) == found.end())
      found.push_back(candidate);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::optional<Seconds> TimeZone::irregular_shift(Seconds from, Seconds to) const {
  // Offsets are sampled every 15 minutes (no zone shifts twice that fast),
  // and each change is narrowed down to its second.
  constexpr std::chrono::seconds k_step{15 * 60};
  long before = offset_at(from);
  for (Seconds sample = from + k_step; sample < to + k_step; sample += k_step) {
    long after = offset_at(sample);
    if (after == before) continue;
    Seconds unchanged = sample - k_step, changed = sample;
    while (changed - unchanged > std::chrono::seconds(1)) {
      Seconds middle = unchanged + (changed - unchanged) / 2;
      (offset_at(middle) == before ? unchanged : changed) = middle;
    }
    long long local_second_of_day = ((changed.time_since_epoch().count() + before) % 86400 + 86400) % 86400;
    bool whole_hour = (after - before) % 3600 == 0;
    bool on_the_hour = local_second_of_day % 3600 == 0;
    bool at_midnight = local_second_of_day == 0;
    if (changed < to && (!whole_hour || !on_the_hour || at_midnight)) return changed;
    before = after;
  }
  return std::nullopt;
}

}  // namespace opctl::kinds::cron
