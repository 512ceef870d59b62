#include "source/sops_scalar.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>

namespace opctl::source::sops {
namespace {

bool one_of(std::string_view text, std::initializer_list<std::string_view> words) {
  for (auto word : words)
    if (text == word) return true;
  return false;
}

// Go's strconv.ParseInt(text, 0, 64): an optional sign, then 0x/0o/0b, a
// leading 0 (octal) or decimal digits.
std::optional<std::int64_t> parse_go_int(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'o' || text[1] == 'O')) {
    base = 8;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  std::uint64_t magnitude = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  constexpr auto k_max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative ? magnitude > k_max + 1 : magnitude > k_max) return std::nullopt;
  return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
}

// Go's strconv.FormatFloat(value, 'f', -1, 64): the shortest digits that
// read back as the same double, never an exponent.
std::string format_go_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::array<char, 400> buffer{};
  auto [end, error] =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed);
  return error == std::errc() ? std::string(buffer.data(), end) : std::to_string(value);
}

std::optional<double> parse_go_float(std::string_view text) {
  std::string plain(text);
  if (!plain.empty() && plain.front() == '+') plain.erase(0, 1);
  double value = 0;
  auto [end, error] = std::from_chars(plain.data(), plain.data() + plain.size(), value);
  if (error != std::errc() || end != plain.data() + plain.size()) return std::nullopt;
  return value;
}

// A double-quoted YAML scalar (JSON's escapes are YAML's); nullopt when the
// text is not UTF-8, which a manifest cannot hold.
std::optional<std::string> quoted(const std::string& text) {
  try {
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  } catch (const nlohmann::json::type_error&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> mac_bytes_of_plain_scalar(std::string_view text) {
  if (one_of(text, {"", "~", "null", "Null", "NULL"})) return std::nullopt;
  if (one_of(text, {"true", "True", "TRUE"})) return "True";
  if (one_of(text, {"false", "False", "FALSE"})) return "False";
  if (one_of(text, {".nan", ".NaN", ".NAN"})) return "NaN";
  if (one_of(text, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) return "+Inf";
  if (one_of(text, {"-.inf", "-.Inf", "-.INF"})) return "-Inf";
  char first = text.empty() ? '\0' : text.front();
  if (first == '.') {
    if (auto value = parse_go_float(text)) return format_go_float(*value);
    return std::string(text);
  }
  if (first != '+' && first != '-' && (first < '0' || first > '9')) return std::string(text);
  // yaml.v3 reads a timestamp into an interface{} as the string it is.
  static const std::regex k_timestamp(R"(^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?$)");
  if (std::regex_match(text.begin(), text.end(), k_timestamp)) return std::string(text);
  std::string plain;
  for (char c : text)
    if (c != '_') plain += c;
  if (auto value = parse_go_int(plain)) return std::to_string(*value);
  static const std::regex k_float(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  if (std::regex_match(plain, k_float))
    if (auto value = parse_go_float(plain)) return format_go_float(*value);
  return std::string(text);
}

std::optional<DecryptedScalar> decrypted_scalar(const std::string& plaintext, std::string_view type) {
  if (type == "str" || type == "bytes" || type == "time") {
    auto yaml = quoted(plaintext);
    if (!yaml) return std::nullopt;
    return DecryptedScalar{plaintext, std::move(*yaml)};
  }
  if (type == "int") {
    std::string_view digits = plaintext;
    if (digits.starts_with('+')) digits.remove_prefix(1);
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return DecryptedScalar{std::to_string(value), std::to_string(value)};
  }
  if (type == "float") {
    auto value = parse_go_float(plaintext);
    if (!value) return std::nullopt;
    std::string text = format_go_float(*value);
    std::string yaml = std::isnan(*value)   ? ".nan"
                       : std::isinf(*value) ? (*value > 0 ? ".inf" : "-.inf")
                                            : text;
    return DecryptedScalar{text, yaml};
  }
  if (type == "bool") {
    if (one_of(plaintext, {"1", "t", "T", "TRUE", "true", "True"})) return DecryptedScalar{"True", "true"};
    if (one_of(plaintext, {"0", "f", "F", "FALSE", "false", "False"}))
      return DecryptedScalar{"False", "false"};
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace opctl::source::sops
