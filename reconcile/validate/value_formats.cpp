#include "validate/value_formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <regex>
#include <vector>

#include "model/base64.hpp"

namespace opctl::validate {
namespace {

std::optional<std::string> integer_range_problem(const model::Json& value, std::int64_t min, std::int64_t max,
                                                 const char* format) {
  if (!value.is_number_integer()) return std::nullopt;
  bool fits = value.is_number_unsigned()
                  ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(max)
                  : value.get<std::int64_t>() >= min && value.get<std::int64_t>() <= max;
  if (fits) return std::nullopt;
  return fmt::format("{} is out of range for {} ({} to {})", value.dump(), format, min, max);
}

bool is_date_time(const std::string& text) {
  // RFC 3339, as metav1.Time parses it.
  static const std::regex pattern(R"(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))");
  return std::regex_match(text, pattern);
}

// Consumes digits from `pos`; returns how many.
std::size_t skip_digits(const std::string& text, std::size_t& pos) {
  std::size_t start = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) != 0)
    ++pos;
  return pos - start;
}

bool is_quantity_suffix(const std::string& suffix) {
  static const std::vector<std::string> suffixes = {"",   "m",  "k",  "M",  "G",  "T",  "P", "E",
                                                    "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u"};
  if (std::find(suffixes.begin(), suffixes.end(), suffix) != suffixes.end()) return true;
  // A decimal exponent: e3, E-2.
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return false;
  std::size_t pos = (suffix[1] == '+' || suffix[1] == '-') ? 2 : 1;
  return skip_digits(suffix, pos) > 0 && pos == suffix.size();
}

}  // namespace

bool is_quantity(const std::string& text) {
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  std::size_t whole = skip_digits(text, pos);
  std::size_t fraction = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    fraction = skip_digits(text, pos);
  }
  if (whole == 0 && fraction == 0) return false;
  return is_quantity_suffix(text.substr(pos));
}

std::optional<std::string> format_problem(const std::string& format, const model::Json& value) {
  if (format == "int32")
    return integer_range_problem(value, std::numeric_limits<std::int32_t>::min(),
                                 std::numeric_limits<std::int32_t>::max(), "int32");
  if (format == "int64")
    return integer_range_problem(value, std::numeric_limits<std::int64_t>::min(),
                                 std::numeric_limits<std::int64_t>::max(), "int64");
  if (!value.is_string()) return std::nullopt;
  const auto& text = value.get_ref<const std::string&>();
  if (format == "byte" && !model::base64_decode(text))
    return std::string("must be base64-encoded (use stringData for plain text)");
  if (format == "date-time" && !is_date_time(text))
    return fmt::format("\"{}\" is not an RFC 3339 date-time (like 2024-05-01T12:00:00Z)", text);
  return std::nullopt;
}

}  // namespace opctl::validate
