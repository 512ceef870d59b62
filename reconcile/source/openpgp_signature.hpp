// OpenPGP commit signatures, checked by GnuPG's `gpgv` against a keyring
// file: every key in it is trusted, no other is, and no trust database or
// user's ~/.gnupg is consulted.
#pragma once

#include <string>

#include "source/signature_verdict.hpp"

namespace opctl::source {

// Good only when gpgv exits 0 and its status says GOODSIG and VALIDSIG with no
// bad, expired or revoked signature or key. Throws InvalidInputError when gpgv
// is not installed.
SignatureVerdict verify_openpgp_signature(const SignedPayload& signed_payload,
                                          const std::string& keyring_file);

// The verdict in gpgv's `--status-fd` lines ("[GNUPG:] GOODSIG <keyid> <user id>", ...)
// and exit code; `keyring_file` only names the keyring in the reason.
SignatureVerdict read_gpgv_status(const std::string& status, int exit_code, const std::string& keyring_file);

}  // namespace opctl::source
