// Where desired state comes from: a git repository (cloned into a cache and
// fetched incrementally) or, without a repository, a plain directory.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "source/helm_chart.hpp"
#include "source/manifest_file.hpp"

namespace opctl::source {

struct GitCredentials {
  std::string token;                      // from OPCTL_GIT_TOKEN; never logged
  std::string token_file;                 // --git-token-file
  std::string basic_auth_file;            // --git-basic-auth-file: "username:password" on one line
  std::string ssh_key_file;               // --git-ssh-key-file
  std::string ssh_passphrase_file;        // --git-ssh-passphrase-file
  std::string known_hosts_file;           // --git-known-hosts-file (default ~/.ssh/known_hosts)
  bool insecure_ignore_host_key = false;  // --git-insecure-ignore-host-key
};

// --verify-commits: the commit a pass uses must carry a good signature from a
// trusted key, or nothing of it is read (see commit_signature.hpp).
struct CommitVerification {
  bool enabled = false;              // --verify-commits
  std::string allowed_signers_file;  // --verify-allowed-signers: OpenSSH allowed_signers, for SSH signatures
  std::string gpg_keyring_file;      // --verify-gpg-keyring: an OpenPGP keyring (gpg --export), for gpgv
};

// How far a git fetch has come, as libgit2 counts it while the pack arrives.
struct TransferProgress {
  std::string repo;  // the URL, credentials stripped
  std::size_t total_objects = 0;
  std::size_t received_objects = 0;
  std::size_t indexed_objects = 0;
  std::size_t total_deltas = 0;
  std::size_t indexed_deltas = 0;
  std::size_t received_bytes = 0;
  bool done = false;  // the fetch is over (also when there was nothing to receive)
};

struct SourceOptions {
  std::string repo;       // URL or local path of a git repository; empty: `path` is a plain directory
  std::string ref;        // branch, tag or commit SHA; empty: the remote's default branch
  std::string path;       // sub-directory in the repository, or the directory itself
  std::string cache_dir;  // empty: $XDG_CACHE_HOME/opctl/git (or ~/.cache/opctl/git)
  GitCredentials credentials;
  CommitVerification verification;
  // What the user should know but is no error (a damaged cache cloned again).
  // Unset: printed to stderr as "warning: ...".
  std::function<void(const std::string&)> on_warning;
  // What a fetch did (objects received, commit resolved), for --verbose. Unset: dropped.
  std::function<void(const std::string&)> on_progress;
  // While a fetch transfers objects: called as often as libgit2 reports (many
  // times a second), so the receiver throttles what it shows. Unset: dropped.
  std::function<void(const TransferProgress&)> on_transfer;
  // The helm: entries (and the namespace charts render into), from the files
  // read: the caller knows where opctl.yaml is. Unset: charts found in the
  // source are rendered with their own values, into namespace "default".
  std::function<HelmSettings(const std::vector<ManifestFile>&)> helm_settings_of;
  // Without `repo`, `path` as it is at this ref of the git work tree holding
  // it (a branch, tag, commit or any revision git understands, such as
  // origin/main or HEAD~1) instead of on disk: `opctl diff --base` on a checkout.
  std::string work_tree_ref;
};

// The signature a commit carries and, when --verify-commits checked it, who made it.
struct CommitSigner {
  std::string format;     // "ssh", "openpgp", "x509" or "unknown"; empty: unsigned, or no git commit
  bool verified = false;  // checked against the trust files, and good
  std::string principal;  // who: the allowed_signers principal (ssh), the key's user id (openpgp)
  std::string key;        // which key: "ED25519 SHA256:..." (ssh), the primary key's fingerprint (openpgp)
};

// What a run was made from, for the report and the opctl.io/source annotation.
struct SourceRevision {
  std::string repo;    // as given (credentials stripped); for a directory in a work tree, origin's URL
  std::string ref;     // as asked for (the default branch's name when none was); the branch of a work tree
  std::string commit;  // full SHA ("-dirty" appended for a work tree with changes); empty outside git
  std::string author;
  std::string time;  // RFC 3339
  std::string subject;
  std::string path;
  CommitSigner signer;

  // "repo@sha:path", or the path alone for a plain directory.
  std::string annotation() const;
};

struct DesiredSource {
  std::vector<ManifestFile> files;
  SourceRevision revision;
};

// Reads every manifest the options point at. Throws InvalidInputError for bad
// input (unknown ref, missing path) and ClusterError-category opctl::Error for
// network and authentication failures; messages name the repo, ref and file.
DesiredSource load_desired_source(const SourceOptions& options);

// Only the first step of load_desired_source: brings the git cache up to date
// and resolves the ref, checking that the path exists; reads no manifest. For
// a plain directory, nothing is fetched: the revision of the work tree it is
// in, if any.
SourceRevision fetch_desired_source(const SourceOptions& options);

// Which source a set is written from, as recorded on its ApplySet parent:
// "<repo URL without credentials>:<path>" for git, the absolute directory
// (symbolic links resolved) for a plain directory.
std::string set_source_identity(const SourceOptions& options);

}  // namespace opctl::source
