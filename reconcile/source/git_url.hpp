// Git repository addresses: which transport a --repo value uses, the parts the
// transports need (host, port, user), and the credentials it may carry, which
// must never reach the cache, a message or the opctl.io/source annotation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/redaction.hpp"

namespace opctl::source {

enum class GitTransport { https, http, ssh, git, file, local };

struct GitUrl {
  GitTransport transport = GitTransport::local;
  // What libgit2 fetches from and what the cache records: no password, and for
  // http(s) no user either (a token is often written as the user name).
  std::string fetch_url;
  // What messages and the revision show; the same as fetch_url.
  std::string display;
  std::string host;      // empty for file and local
  int port = 0;          // 0: the transport's default
  std::string username;  // from the URL, percent-decoded; empty when absent
  std::string password;  // from the URL, percent-decoded; never shown
  std::string path;      // the path on the server, or the local path
};

// Parses https://, http://, ssh:// (also git+ssh://), scp-like user@host:path,
// git://, file:// and plain paths (made absolute against `cwd`). Throws
// InvalidInputError for an empty or malformed address.
GitUrl parse_git_url(std::string_view repo, std::string_view cwd);

// The SSH port, 22 unless the URL names another.
int ssh_port(const GitUrl& url);

// For error messages from libgit2, which may quote the URL it was given.
using model::redact_credentials;

}  // namespace opctl::source
