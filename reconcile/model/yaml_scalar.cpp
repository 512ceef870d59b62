#include "model/yaml_scalar.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string_view>

namespace opctl::model {
namespace {

// Every scalar of a manifest passes through here, so the number grammars are
// matched by hand rather than with std::regex (which cost more than the whole
// YAML parse). Each matcher accepts exactly what its regex_match did:
//   integer  [-+]?(0|[1-9][0-9_]*)
//   hex      [-+]?0x[0-9a-fA-F_]+
//   float    [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_digit_or_underscore(char c) {
  return is_digit(c) || c == '_';
}
bool is_hex_digit_or_underscore(char c) {
  return is_digit_or_underscore(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string_view without_sign(std::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  return text;
}

// Drops the longest prefix of `text` whose characters satisfy `accept`.
template <typename Accept>
std::string_view skip_while(std::string_view text, Accept accept) {
  std::size_t count = 0;
  while (count < text.size() && accept(text[count]))
    ++count;
  return text.substr(count);
}

bool is_integer(std::string_view text) {
  text = without_sign(text);
  if (text == "0") return true;
  if (text.empty() || text.front() < '1' || text.front() > '9') return false;
  return skip_while(text.substr(1), is_digit_or_underscore).empty();
}

bool is_hex(std::string_view text) {
  text = without_sign(text);
  if (!text.starts_with("0x") || text.size() == 2) return false;
  return skip_while(text.substr(2), is_hex_digit_or_underscore).empty();
}

bool is_float(std::string_view text) {
  text = without_sign(text);
  if (text.empty()) return false;
  if (text.front() == '.') {
    std::string_view rest = skip_while(text.substr(1), is_digit);
    if (rest.size() == text.size() - 1) return false;  // `\.[0-9]+` needs a digit
    text = rest;
  } else {
    if (!is_digit(text.front())) return false;
    text = skip_while(text.substr(1), is_digit_or_underscore);
    if (!text.empty() && text.front() == '.') text = skip_while(text.substr(1), is_digit_or_underscore);
  }
  if (text.empty()) return true;
  if (text.front() != 'e' && text.front() != 'E') return false;
  text = without_sign(text.substr(1));
  return !text.empty() && skip_while(text, is_digit).empty();
}

// A number the grammars above matched, as a double. Like Go's ParseFloat, an
// underflow is the nearest double (0 or a subnormal); an overflow has no JSON
// number.
double as_double(const std::string& text, const std::string& digits) {
  errno = 0;
  const double value = std::strtod(digits.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(value)) throw NumberOutOfRange("number out of range: " + text);
  return value;
}

bool is_one_of(const std::string& text, std::initializer_list<std::string_view> words) {
  for (std::string_view word : words)
    if (text == word) return true;
  return false;
}

}  // namespace

Json resolve_plain_scalar(std::string text) {
  if (text.empty() || is_one_of(text, {"~", "null", "Null", "NULL"})) return nullptr;
  if (is_one_of(text, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) return true;
  if (is_one_of(text, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"}))
    return false;
  const char first = text.front();
  if (!is_digit(first) && first != '-' && first != '+' && first != '.') return text;  // most strings end here
  std::string digits;
  for (char c : text)
    if (c != '_') digits += c;
  try {
    if (is_integer(text)) return std::stoll(digits);
    if (is_hex(text)) return std::stoll(digits, nullptr, 16);
    if (is_float(text)) return as_double(text, digits);
  } catch (const std::out_of_range&) {
    return as_double(text, digits);  // too big for an int64: a float, like go-yaml
  }
  return text;  // .inf and .nan too: JSON has no number for them
}

}  // namespace opctl::model
