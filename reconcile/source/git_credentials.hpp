// How the git source authenticates and whom it trusts: the credentials to
// offer (planned up front from the flags, the URL, ~/.netrc, ssh-agent and the
// default SSH keys, so a missing file is an input error before any traffic),
// the known_hosts entries an SSH server's key must match, and the libgit2
// callbacks that hand both over during a fetch.
#pragma once

#include <git2.h>

#include <functional>
#include <string>
#include <vector>

#include "source/desired_source.hpp"
#include "source/git_known_hosts.hpp"
#include "source/git_url.hpp"

namespace opctl::source {

// The parts of the process environment authentication depends on.
struct AuthEnvironment {
  std::string home;        // $HOME
  std::string netrc_file;  // $NETRC, else ~/.netrc
  bool ssh_agent = false;  // $SSH_AUTH_SOCK is set

  static AuthEnvironment from_process();
};

inline constexpr const char* k_token_username = "x-access-token";

struct CredentialCandidate {
  enum class Kind { userpass, ssh_key, ssh_agent };
  Kind kind = Kind::userpass;
  std::string username;
  std::string secret;           // password, token or key passphrase: never shown
  std::string key_file;         // Kind::ssh_key
  std::string public_key_file;  // beside the key when present
  std::string description;      // for messages: "token from --git-token-file"
};

struct GitAuth {
  std::vector<CredentialCandidate> candidates;  // offered in this order, each once
  std::vector<std::string> secrets;             // redacted from every message
  bool verify_host_key = true;
  std::vector<std::string> known_hosts_files;  // the files the entries came from
  std::vector<KnownHost> known_hosts;
};

// Plans authentication for `url`. HTTP(S): --git-basic-auth-file, else a token
// (--git-token-file, else OPCTL_GIT_TOKEN) sent as basic auth with the URL's
// user name or "x-access-token", else user:password in the URL, else the
// ~/.netrc entry for the host. SSH: --git-ssh-key-file (with
// --git-ssh-passphrase-file), else ssh-agent and ~/.ssh/id_{ed25519,ecdsa,rsa}.
// Throws InvalidInputError for unreadable or malformed credential files.
GitAuth plan_auth(const GitUrl& url, const GitCredentials& credentials, const AuthEnvironment& environment);

// State shared with libgit2's callbacks during one fetch.
struct AuthSession {
  const GitUrl* url = nullptr;
  const GitAuth* auth = nullptr;
  std::size_t next_candidate = 0;
  std::vector<std::string> tried;  // descriptions of the credentials offered
  std::string failure;             // why a callback stopped the transfer
  bool host_key_rejected = false;
  // The fetch's transfer progress (the same payload carries it); unset: not reported.
  std::function<void(const git_indexer_progress&)> on_transfer;
};

// Callbacks (credentials, certificate_check) with `session` as payload.
git_remote_callbacks auth_callbacks(AuthSession& session);

// The one-line verdict on an SSH host key, empty when the key is trusted.
std::string host_key_problem(const GitUrl& url, const GitAuth& auth, const std::string& key);

}  // namespace opctl::source
