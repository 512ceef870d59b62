#include "source/commit_signature.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "model/error.hpp"
#include "source/git_handles.hpp"
#include "source/git_revision.hpp"
#include "source/openpgp_signature.hpp"
#include "source/ssh_signature.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw InvalidInputError({Problem{"", 0, "--verify-commits", message}});
}

// A private directory (0700) for the signature file and gpgv's home, removed
// when done. Signatures are public data; nothing secret is ever written here.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "opctl-signature-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error(ErrorCategory::internal, "cannot create a temporary directory for a commit signature");
    path_ = pattern;
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }

  fs::path write(const std::string& name, const std::string& content) const {
    fs::path file = path_ / name;
    std::ofstream out(file, std::ios::binary);
    out << content;
    if (!out.flush()) throw Error(ErrorCategory::internal, "cannot write " + file.string());
    return file;
  }

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void require_readable(const std::string& file, const std::string& flag) {
  std::ifstream in(file);
  if (!in) throw InvalidInputError({Problem{file, 0, flag, "cannot read the file"}});
}

SignatureVerdict verify(const CommitSignature& signature, const CommitVerification& verification) {
  ScratchDirectory scratch;
  fs::path home = scratch.path() / "home";
  fs::create_directory(home);
  fs::permissions(home, fs::perms::owner_all);
  SignedPayload signed_payload{scratch.write("signature", signature.signature).string(), signature.payload,
                               home.string()};
  if (signature.format == SignatureFormat::ssh)
    return verify_ssh_signature(signed_payload, verification.allowed_signers_file);
  return verify_openpgp_signature(signed_payload, verification.gpg_keyring_file);
}

}  // namespace

SignatureFormat signature_format(std::string_view signature) {
  if (signature.empty()) return SignatureFormat::none;
  if (signature.starts_with("-----BEGIN SSH SIGNATURE-----")) return SignatureFormat::ssh;
  if (signature.starts_with("-----BEGIN PGP SIGNATURE-----") ||
      signature.starts_with("-----BEGIN PGP MESSAGE-----"))
    return SignatureFormat::openpgp;
  if (signature.starts_with("-----BEGIN SIGNED MESSAGE-----")) return SignatureFormat::x509;
  return SignatureFormat::unknown;
}

std::string format_name(SignatureFormat format) {
  switch (format) {
    case SignatureFormat::none:
      return "";
    case SignatureFormat::ssh:
      return "ssh";
    case SignatureFormat::openpgp:
      return "openpgp";
    case SignatureFormat::x509:
      return "x509";
    case SignatureFormat::unknown:
      return "unknown";
  }
  return "unknown";
}

CommitSignature read_commit_signature(git_repository& repository, const git_commit& commit) {
  GitBuffer signature, payload;
  git_oid id = *git_commit_id(&commit);
  int code = git_commit_extract_signature(&signature.buffer, &payload.buffer, &repository, &id, nullptr);
  if (code == GIT_ENOTFOUND) return {};
  check_cache(code, "the signature of commit " + std::string(git_oid_tostr_s(&id)));
  return {signature_format(signature.str()), signature.str(), payload.str()};
}

void check_verification_settings(const SourceOptions& options) {
  const auto& verification = options.verification;
  bool has_trust = !verification.allowed_signers_file.empty() || !verification.gpg_keyring_file.empty();
  if (!verification.enabled) {
    if (has_trust)
      throw InvalidInputError({Problem{
          "", 0,
          verification.allowed_signers_file.empty() ? "--verify-gpg-keyring" : "--verify-allowed-signers",
          "a trust file only takes effect with --verify-commits: give that too (or verify.commits: true in "
          "opctl.yaml)"}});
    return;
  }
  if (options.repo.empty())
    refuse(
        "needs a git source (--repo): the files of a plain directory are not a signed commit (untracked, "
        "ignored and changed files would be applied unverified); to verify a checkout, give --repo with its "
        "path, "
        "so that the files are read from the commit itself");
  if (!has_trust)
    refuse(
        "needs a trust file: --verify-allowed-signers FILE (SSH signatures) and/or --verify-gpg-keyring FILE "
        "(OpenPGP signatures)");
  if (!verification.allowed_signers_file.empty())
    require_readable(verification.allowed_signers_file, "--verify-allowed-signers");
  if (!verification.gpg_keyring_file.empty())
    require_readable(verification.gpg_keyring_file, "--verify-gpg-keyring");
}

std::string refusal_message(const SourceRevision& revision, const std::string& what) {
  return fmt::format("repo {} at ref {}: commit {} (\"{}\") {}", revision.repo, revision.ref,
                     short_commit_id(revision.commit), revision.subject, what);
}

void check_commit_signature(git_repository& repository, const git_commit& commit,
                            const CommitVerification& verification, SourceRevision& revision) {
  CommitSignature signature = read_commit_signature(repository, commit);
  revision.signer = CommitSigner{format_name(signature.format), false, "", ""};
  if (!verification.enabled) return;
  switch (signature.format) {
    case SignatureFormat::none:
      refuse(refusal_message(revision,
                             "is unsigned; --verify-commits applies only commits signed by a trusted key"));
    case SignatureFormat::x509:
      refuse(refusal_message(revision,
                             "carries an X.509 (gpgsm) signature; opctl verifies SSH and OpenPGP ones"));
    case SignatureFormat::unknown:
      refuse(refusal_message(revision, "carries a signature of an unknown format"));
    case SignatureFormat::ssh:
    case SignatureFormat::openpgp:
      break;
  }
  SignatureVerdict verdict = verify(signature, verification);
  revision.signer.principal = verdict.principal;
  revision.signer.key = verdict.key;
  if (!verdict.good) refuse(refusal_message(revision, verdict.reason));
  revision.signer.verified = true;
}

}  // namespace opctl::source
