// What to present to the API server on the next batch of requests: a bearer
// token (static, from a file that may rotate, or from an exec plugin, cached
// until it expires) and/or a client certificate.
#pragma once

#include <chrono>
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

 private:
  Credential run_exec_plugin();

  ClusterConfig cluster_;
  Credential cached_exec_;
  std::chrono::system_clock::time_point exec_expiry_{};
  bool exec_cached_ = false;
};

// Parses an ExecCredential document printed by a plugin. Exposed for tests.
Credential parse_exec_credential(const std::string& output, const std::string& command,
                                 std::chrono::system_clock::time_point& expiry, bool& has_expiry);

}  // namespace opctl::kube
