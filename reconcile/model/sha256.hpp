// SHA-256 (OpenSSL's), for ApplySet IDs, cache names and key fingerprints.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace opctl::model {

std::array<std::uint8_t, 32> sha256(std::string_view data);
std::string sha256_hex(std::string_view data);

}  // namespace opctl::model
