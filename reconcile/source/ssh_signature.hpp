// SSH commit signatures, checked by OpenSSH's `ssh-keygen -Y` (the reference
// verifier) against an allowed_signers file, in the namespace "git" that git
// signs in.
#pragma once

#include <string>
#include <vector>

#include "source/signature_verdict.hpp"

namespace opctl::source {

// Good only when the signature is valid for the payload and ssh-keygen
// accepts its key for a principal of `allowed_signers_file` in namespace
// "git" at the current time (valid-before/valid-after are checked against
// now, not against the commit's own date, which the signer chose). Throws
// InvalidInputError when ssh-keygen is not installed.
SignatureVerdict verify_ssh_signature(const SignedPayload& signed_payload,
                                      const std::string& allowed_signers_file);

// "ED25519 SHA256:..." from ssh-keygen's `Good "git" signature [for P] with ED25519 key SHA256:...`;
// empty when the line is not there.
std::string ssh_key_in(const std::string& ssh_keygen_output);

// The principals `ssh-keygen -Y find-principals` printed: one line per
// matching allowed_signers entry, each a comma-separated list.
std::vector<std::string> principals_in(const std::string& find_principals_output);

}  // namespace opctl::source
