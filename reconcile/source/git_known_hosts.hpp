// OpenSSH known_hosts files: parsing lines (plain, wildcard, negated and
// hashed host patterns, @revoked markers) and deciding whether the key an SSH
// server presented is the one the file trusts for that host and port.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opctl::source {

struct KnownHost {
  enum class Marker { none, cert_authority, revoked };
  Marker marker = Marker::none;
  std::vector<std::string> patterns;  // "host", "*.example.com", "!bad", "[host]:2222", "|1|salt|hash"
  std::string key_type;               // "ssh-ed25519", ...
  std::string key;                    // the decoded key blob
};

// nullopt for blank lines, comments and lines that are not a valid entry.
std::optional<KnownHost> parse_known_hosts_line(std::string_view line);
std::vector<KnownHost> parse_known_hosts(std::string_view text);

// How OpenSSH names a host in known_hosts: "host" on port 22, "[host]:port" otherwise.
std::string known_hosts_name(std::string_view host, int port);

bool host_matches(const KnownHost& entry, std::string_view host, int port);

enum class HostKeyVerdict {
  trusted,     // an entry for the host has exactly this key
  mismatch,    // the host is listed with a key of this type, but a different one
  other_type,  // the host is listed only with keys of other types
  unknown,     // the host is not listed
  revoked,     // the key is marked @revoked
};

struct HostKeyCheck {
  HostKeyVerdict verdict = HostKeyVerdict::unknown;
  std::vector<std::string> listed_types;  // the key types listed for the host
};

HostKeyCheck check_host_key(const std::vector<KnownHost>& entries, std::string_view host, int port,
                            std::string_view key_type, std::string_view key);

// The key type named inside an SSH public key blob ("ssh-ed25519"), empty if malformed.
std::string key_blob_type(std::string_view key);

// "SHA256:<base64>", the fingerprint ssh-keygen -l prints.
std::string key_fingerprint(std::string_view key);

}  // namespace opctl::source
