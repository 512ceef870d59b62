// Commit signatures: what a commit carries (read with libgit2) and, with
// --verify-commits, whether a trusted key made it (SSH signatures by
// ssh-keygen against allowed_signers, OpenPGP signatures by gpgv against a
// keyring). The git source checks the commit a ref resolves to before it reads
// any file of it; a tag is followed to its commit, and only the commit's own
// signature counts (a signed tag's signature is not consulted).
#pragma once

#include <git2.h>

#include <string>
#include <string_view>

#include "source/desired_source.hpp"

namespace opctl::source {

enum class SignatureFormat { none, ssh, openpgp, x509, unknown };

// From the armor's first line; `none` for an empty signature.
SignatureFormat signature_format(std::string_view signature);

// "ssh", "openpgp", "x509", "unknown"; empty for none (as CommitSigner::format).
std::string format_name(SignatureFormat format);

// The commit's signature (its gpgsig header) and the bytes it signs.
struct CommitSignature {
  SignatureFormat format = SignatureFormat::none;
  std::string signature;
  std::string payload;
};

// Reads the signature of `commit`; format none when it has none.
CommitSignature read_commit_signature(git_repository& repository, const git_commit& commit);

// Throws InvalidInputError when the verification settings cannot work: trust
// files without --verify-commits, --verify-commits without a trust file or
// with one that cannot be read, or a plain directory as the source.
void check_verification_settings(const SourceOptions& options);

// Fills revision.signer from the commit; with verification enabled, checks the
// signature and throws InvalidInputError naming the commit (short SHA and
// subject) and the signer found (or "unsigned") when it is not a good
// signature by a trusted key.
void check_commit_signature(git_repository& repository, const git_commit& commit,
                            const CommitVerification& verification, SourceRevision& revision);

// `repo R at ref F: commit abc1234 ("subject") <what>`, the refusal's message.
std::string refusal_message(const SourceRevision& revision, const std::string& what);

}  // namespace opctl::source
