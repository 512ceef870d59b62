// A SOPS file's data key, unwrapped by Debian's `age` (the reference
// implementation) with the user's identities. The key only ever lives in
// memory: age reads the wrapped key on stdin and prints the key on stdout.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "source/sops_metadata.hpp"

namespace opctl::source::sops {

struct AgeIdentities {
  std::vector<std::string> files;  // age identity files (AGE-SECRET-KEY-1... lines, or SSH private keys)
  std::chrono::seconds timeout{30};
};

// The 32-byte data key from the first stanza an identity opens. On failure,
// appends a problem naming `file` (and what age said) and returns "".
std::string unwrap_data_key(const std::vector<AgeStanza>& stanzas, const AgeIdentities& identities,
                            const std::string& file, int line, std::vector<Problem>& problems);

}  // namespace opctl::source::sops
