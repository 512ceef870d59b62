// Kubernetes timestamps (metav1.Time): RFC 3339 in UTC with whole seconds,
// e.g. 2026-11-29T16:05:00Z, as conditions and custom-kind status carry them.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace opctl::kinds {

using TimePoint = std::chrono::system_clock::time_point;

std::string format_time(TimePoint time);
// Accepts "Z" or a numeric offset and optional fractional seconds; nullopt
// when the text is not such a timestamp.
std::optional<TimePoint> parse_time(const std::string& text);

// "7d", "36h", "90m", "1w2d", "1h30m", "45s" -> seconds; nullopt when
// malformed or zero. Days and weeks are 24h and 7d (no calendar).
std::optional<std::chrono::seconds> parse_age(const std::string& text);
// Back again in the largest units that divide it: 604800s -> "7d".
std::string format_age(std::chrono::seconds age);

}  // namespace opctl::kinds
