// What to present to the API server on the next batch of requests: a bearer
// token (static, from a file that may rotate, or from an exec plugin, cached
// until it expires) and/or a client certificate.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "kube/cluster_config.hpp"

namespace opctl::kube {

struct Credential {
  std::string bearer_token;
  std::string client_cert_pem;
  std::string client_key_pem;
};

class CredentialSource {
 public:
  explicit CredentialSource(ClusterConfig cluster) : cluster_(std::move(cluster)) {}
  // Throws opctl::Error (cluster) when a token file or exec plugin fails.
  Credential current();
  // Forgets the exec plugin's cached credential (the server rejected it), so
  // the next current() runs the plugin again.
  void expire() { exec_cached_ = false; }

 private:
  Credential run_exec_plugin();

  ClusterConfig cluster_;
  Credential cached_exec_;
  std::chrono::system_clock::time_point exec_expiry_{};
  bool exec_cached_ = false;
};

// A plugin's credential is renewed this long before it expires, so a batch
// started just before expiry does not run out mid-way.
inline constexpr std::chrono::seconds k_exec_renew_margin{10};

// Parses an ExecCredential document printed by a plugin. Exposed for tests.
Credential parse_exec_credential(const std::string& output, const std::string& command,
                                 std::chrono::system_clock::time_point& expiry, bool& has_expiry);

// The KUBERNETES_EXEC_INFO a plugin receives. Exposed for tests.
std::string exec_info(const ClusterConfig& cluster);

// RFC 3339 ("2030-01-02T03:04:05Z", "...05.123+02:00"); nullopt when malformed.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text);

}  // namespace opctl::kube
