#include "kinds/cluster/lsn.hpp"

#include <fmt/format.h>

namespace opctl::kinds::cluster {
namespace {

std::optional<std::uint32_t> parse_half(std::string_view text) {
  if (text.empty() || text.size() > 8) return std::nullopt;
  std::uint32_t value = 0;
  for (char c : text) {
    int digit = 0;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else
      return std::nullopt;
    value = value * 16 + static_cast<std::uint32_t>(digit);
  }
  return value;
}

}  // namespace

std::optional<Lsn> Lsn::parse(std::string_view text) {
  auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto high = parse_half(text.substr(0, slash));
  auto low = parse_half(text.substr(slash + 1));
  if (!high || !low) return std::nullopt;
  return Lsn((static_cast<std::uint64_t>(*high) << 32) | *low);
}

std::string Lsn::to_string() const {
  return fmt::format("{:X}/{:X}", value_ >> 32, value_ & 0xFFFFFFFFu);
}

}  // namespace opctl::kinds::cluster
