#include "model/base64.hpp"

#include <array>
#include <cstdint>

namespace opctl::model {
namespace {

constexpr std::string_view k_standard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view k_url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string encode(std::string_view bytes, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  auto byte = [&bytes](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i]));
  };
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    std::uint32_t group = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int shift = 18; shift >= 0; shift -= 6)
      out += alphabet[(group >> shift) & 0x3F];
  }
  std::size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  std::uint32_t group = byte(i) << 16 | (rest == 2 ? byte(i + 1) << 8 : 0);
  out += alphabet[(group >> 18) & 0x3F];
  out += alphabet[(group >> 12) & 0x3F];
  if (rest == 2) out += alphabet[(group >> 6) & 0x3F];
  if (pad) out.append(3 - rest, '=');
  return out;
}

constexpr std::array<signed char, 256> decoding_table() {
  std::array<signed char, 256> table{};
  for (auto& entry : table)
    entry = -1;
  for (std::size_t i = 0; i < k_standard.size(); ++i)
    table[static_cast<unsigned char>(k_standard[i])] = static_cast<signed char>(i);
  return table;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  return encode(bytes, k_standard, true);
}

std::string base64_url_encode_unpadded(std::string_view bytes) {
  return encode(bytes, k_url, false);
}

std::optional<std::string> base64_decode(std::string_view text) {
  static constexpr auto k_table = decoding_table();
  // Most values have no line breaks: only those are copied without them.
  std::string without_breaks;
  std::string_view digits = text;
  if (text.find_first_of("\r\n") != std::string_view::npos) {
    without_breaks.reserve(text.size());
    for (char c : text)
      if (c != '\r' && c != '\n') without_breaks += c;
    digits = without_breaks;
  }
  if (digits.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(digits.size() / 4 * 3);
  for (std::size_t i = 0; i < digits.size(); i += 4) {
    bool last = i + 4 == digits.size();
    // "xx==" or "xxx=", in the last group only.
    std::size_t padding = digits[i + 3] != '=' ? 0 : digits[i + 2] == '=' ? 2 : 1;
    if (padding > 0 && !last) return std::nullopt;
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      int digit = k < 4 - padding ? k_table[static_cast<unsigned char>(digits[i + k])] : 0;
      if (digit < 0) return std::nullopt;
      group = group << 6 | static_cast<std::uint32_t>(digit);
    }
    out += static_cast<char>(group >> 16 & 0xFF);
    if (padding < 2) out += static_cast<char>(group >> 8 & 0xFF);
    if (padding < 1) out += static_cast<char>(group & 0xFF);
  }
  return out;
}

}  // namespace opctl::model
