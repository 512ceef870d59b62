#include "source/git_digest.hpp"

#include <array>
#include <cstdint>

#include "model/sha256.hpp"

namespace opctl::source {

namespace {

constexpr std::uint32_t rotl(std::uint32_t value, int bits) {
  return (value << bits) | (value >> (32 - bits));
}

// Merkle–Damgård padding: 0x80, zeros, 64-bit big-endian bit length.
std::string pad_message(std::string_view data) {
  std::string message(data);
  std::uint64_t bit_length = static_cast<std::uint64_t>(data.size()) * 8;
  message.push_back(static_cast<char>(0x80));
  while (message.size() % 64 != 56)
    message.push_back('\0');
  for (int shift = 56; shift >= 0; shift -= 8)
    message.push_back(static_cast<char>((bit_length >> shift) & 0xff));
  return message;
}

std::uint32_t load_big_endian(const std::string& bytes, std::size_t offset) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i)
    value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

template <std::size_t N>
std::string store_big_endian(const std::array<std::uint32_t, N>& words) {
  std::string out;
  for (auto word : words)
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<char>((word >> shift) & 0xff));
  return out;
}

void sha1_block(std::array<std::uint32_t, 5>& state, const std::string& message, std::size_t offset) {
  std::array<std::uint32_t, 80> w{};
  for (std::size_t i = 0; i < 16; ++i)
    w[i] = load_big_endian(message, offset + 4 * i);
  for (std::size_t i = 16; i < 80; ++i)
    w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  auto [a, b, c, d, e] = state;
  for (std::size_t i = 0; i < 80; ++i) {
    std::uint32_t f = 0, k = 0;
    if (i < 20)
      f = (b & c) | (~b & d), k = 0x5a827999;
    else if (i < 40)
      f = b ^ c ^ d, k = 0x6ed9eba1;
    else if (i < 60)
      f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
    else
      f = b ^ c ^ d, k = 0xca62c1d6;
    std::uint32_t next = rotl(a, 5) + f + e + k + w[i];
    e = d, d = c, c = rotl(b, 30), b = a, a = next;
  }
  state[0] += a, state[1] += b, state[2] += c, state[3] += d, state[4] += e;
}

constexpr std::string_view k_base64_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string sha256(std::string_view data) {
  auto digest = model::sha256(data);
  return std::string(digest.begin(), digest.end());
}

std::string sha1(std::string_view data) {
  std::array<std::uint32_t, 5> state = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  std::string message = pad_message(data);
  for (std::size_t offset = 0; offset < message.size(); offset += 64)
    sha1_block(state, message, offset);
  return store_big_endian(state);
}

std::string hmac_sha1(std::string_view key, std::string_view data) {
  std::string block_key = key.size() > 64 ? sha1(key) : std::string(key);
  block_key.resize(64, '\0');
  std::string inner(64, '\0'), outer(64, '\0');
  for (std::size_t i = 0; i < 64; ++i) {
    inner[i] = static_cast<char>(block_key[i] ^ 0x36);
    outer[i] = static_cast<char>(block_key[i] ^ 0x5c);
  }
  return sha1(outer + sha1(inner + std::string(data)));
}

std::string to_hex(std::string_view bytes) {
  constexpr std::string_view digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char byte : bytes) {
    out.push_back(digits[byte >> 4]);
    out.push_back(digits[byte & 0xf]);
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  std::size_t padding = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '=') {
      if (i < text.size() - 2) return std::nullopt;
      ++padding;
      continue;
    }
    if (padding > 0) return std::nullopt;
    auto index = k_base64_alphabet.find(c);
    if (index == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(index);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    std::uint32_t triple = (static_cast<unsigned char>(bytes[i]) << 16) |
                           (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                           static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6)
      out.push_back(k_base64_alphabet[(triple >> shift) & 0x3f]);
  }
  std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t triple = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) triple |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out.push_back(k_base64_alphabet[(triple >> 18) & 0x3f]);
    out.push_back(k_base64_alphabet[(triple >> 12) & 0x3f]);
    out.push_back(rest == 2 ? k_base64_alphabet[(triple >> 6) & 0x3f] : '=');
    out.push_back('=');
  }
  return out;
}

}  // namespace opctl::source
