// The `sops` block a SOPS-encrypted file carries: who can unwrap its data key,
// which values are encrypted, and the encrypted MAC.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "model/go_pattern.hpp"

namespace opctl::source::sops {

struct AgeStanza {
  std::string recipient;
  std::string armored_data_key;  // the data key encrypted to `recipient`, ASCII-armored
};

struct Metadata {
  std::vector<AgeStanza> age;
  std::vector<std::string> other_key_types;  // pgp, kms, gcp_kms, azure_kv, hc_vault: not opctl's
  std::string last_modified;                 // the MAC's additional data
  std::string mac;                           // ENC[...] of the MAC
  int mac_line = 0;
  bool mac_only_encrypted = false;
  // Which values are encrypted, at most one of each pair set (SOPS's rules).
  std::string unencrypted_suffix, encrypted_suffix;
  std::optional<model::GoPattern> unencrypted_regex, encrypted_regex;  // RE2 syntax, as SOPS (Go) reads them
  bool comment_rules = false;  // *_comment_regex: decided by comments, which opctl cannot see
  bool key_groups = false;     // Shamir key groups: not supported

  // SOPS's shouldBeEncrypted for a value at `path` (its keys from the top).
  bool should_be_encrypted(const std::vector<std::string>& path) const;
};

// The `sops` mapping of a document, or nullopt when the document has none.
// Problems (a missing mac, a bad regex) are appended, naming `file`.
std::optional<Metadata> read_metadata(const YAML::Node& document, const std::string& file,
                                      std::vector<Problem>& problems);

}  // namespace opctl::source::sops
