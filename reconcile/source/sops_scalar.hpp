// Values as SOPS sees them. SOPS reads YAML with Go's yaml.v3 and hashes each
// value into the file's MAC in its Go form (an int as decimal digits, a bool
// as "True"/"False"), so verifying the MAC means typing a scalar the way
// yaml.v3 does, not the way kubectl does ("yes" is a string here).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opctl::source::sops {

// The bytes the MAC hashes for a plain (unquoted, untagged) scalar; nullopt
// for a null, which SOPS skips.
std::optional<std::string> mac_bytes_of_plain_scalar(std::string_view text);

// A decrypted value: what the MAC hashes and what is written back into the
// manifest as a YAML scalar (a string double-quoted, numbers and booleans
// plain). nullopt for a comment (never hashed) or a plaintext its type cannot
// hold (e.g. "x" for an int): the caller reports the file.
struct DecryptedScalar {
  std::string mac_bytes;
  std::string yaml;
};
std::optional<DecryptedScalar> decrypted_scalar(const std::string& plaintext, std::string_view type);

}  // namespace opctl::source::sops
