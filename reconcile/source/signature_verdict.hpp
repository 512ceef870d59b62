// What the commit signature verifiers (ssh_signature, openpgp_signature) take
// and what they answer, shared so the two read alike.
#pragma once

#include <string>

namespace opctl::source {

// A detached signature and the bytes it signs, as the verifier programs read them.
struct SignedPayload {
  std::string signature_file;  // the armored signature, in a private temporary directory
  std::string payload;         // the commit object without its gpgsig header; fed on stdin
  std::string scratch_dir;     // private and empty: a verifier's home (gpgv), removed afterwards
};

struct SignatureVerdict {
  bool good = false;      // a valid signature by a trusted key
  std::string principal;  // who signed, when known (an allowed_signers principal, a user id)
  std::string key;        // the key that made the signature, when known (also when it is not trusted)
  std::string reason;  // when not good, what follows the commit in the message: "is signed by ... which ..."
};

}  // namespace opctl::source
