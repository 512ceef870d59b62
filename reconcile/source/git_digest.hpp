// Small digests the git source needs without another crypto dependency:
// HMAC-SHA-1 matches hashed known_hosts entries (`|1|salt|hash`), base64
// decodes their keys, SHA-256 (model/sha256) fingerprints them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opctl::source {

// Raw digests (32 and 20 bytes) as binary strings.
std::string sha256(std::string_view data);
std::string sha1(std::string_view data);
std::string hmac_sha1(std::string_view key, std::string_view data);

std::string to_hex(std::string_view bytes);

// Standard base64 with padding; nullopt for anything malformed.
std::optional<std::string> base64_decode(std::string_view text);
std::string base64_encode(std::string_view bytes);

}  // namespace opctl::source
