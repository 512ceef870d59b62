// The digests the git source needs, from OpenSSL: HMAC-SHA-1 matches hashed
// known_hosts entries (`|1|salt|hash`), SHA-256 fingerprints their keys
// (base64 comes from model/base64).
#pragma once

#include <string>
#include <string_view>

namespace opctl::source {

// Raw digests (32 and 20 bytes) as binary strings.
std::string sha256(std::string_view data);
std::string sha1(std::string_view data);
std::string hmac_sha1(std::string_view key, std::string_view data);

std::string to_hex(std::string_view bytes);

}  // namespace opctl::source
