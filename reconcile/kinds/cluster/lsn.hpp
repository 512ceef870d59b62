// A PostgreSQL WAL position ("LSN") as the sidecar reports it, "0/3000060":
// two hexadecimal halves of one 64-bit number. Compared numerically, never as
// text ("0/A000000" is after "0/9FFFFFF", "1/0" after "0/FFFFFFFF").
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace opctl::kinds::cluster {

class Lsn {
 public:
  // nullopt unless `text` is HEX/HEX with 1 to 8 digits on each side.
  static std::optional<Lsn> parse(std::string_view text);
  explicit Lsn(std::uint64_t value) : value_(value) {}

  std::uint64_t value() const { return value_; }
  std::string to_string() const;
  auto operator<=>(const Lsn&) const = default;

 private:
  std::uint64_t value_;
};

}  // namespace opctl::kinds::cluster
