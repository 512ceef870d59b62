// SHA-256 (FIPS 180-4), for ApplySet IDs and cache names; not for secrets.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace opctl::model {

std::array<std::uint8_t, 32> sha256(std::string_view data);
std::string sha256_hex(std::string_view data);

}  // namespace opctl::model
