#include "kube/base64.hpp"

#include <array>

namespace opctl::kube {
namespace {
constexpr std::string_view k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned value = (static_cast<unsigned char>(bytes[i]) << 16) |
                     (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                     static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6)
      out += k_alphabet[(value >> shift) & 0x3F];
  }
  if (std::size_t rest = bytes.size() - i; rest > 0) {
    unsigned value = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) value |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += k_alphabet[(value >> 18) & 0x3F];
    out += k_alphabet[(value >> 12) & 0x3F];
    out += rest == 2 ? k_alphabet[(value >> 6) & 0x3F] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::array<int, 256> table{};
  table.fill(-1);
  for (std::size_t i = 0; i < k_alphabet.size(); ++i)
    table[static_cast<unsigned char>(k_alphabet[i])] = int(i);
  std::string out;
  unsigned value = 0;
  int bits = 0;
  std::size_t padding = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return std::nullopt;
    int digit = table[static_cast<unsigned char>(c)];
    if (digit < 0) return std::nullopt;
    value = (value << 6) | unsigned(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((value >> bits) & 0xFF);
    }
  }
  if (padding > 2) return std::nullopt;
  return out;
}

}  // namespace opctl::kube
