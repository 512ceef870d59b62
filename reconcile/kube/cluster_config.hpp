// How to reach and authenticate to one API server, resolved from a kubeconfig
// or from the in-cluster service account.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opctl::kube {

inline constexpr int k_default_exec_timeout_seconds = 60;

struct ExecPlugin {
  std::string api_version;
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string interactive_mode;       // Never, IfAvailable, Always
  bool provide_cluster_info = false;  // pass the cluster (server, CA, ...) in KUBERNETES_EXEC_INFO
  std::string install_hint;           // shown when the command cannot be run
  // Not in the kubeconfig: --exec-timeout. Then the plugin is killed.
  std::chrono::milliseconds timeout{std::chrono::seconds(k_default_exec_timeout_seconds)};
};

struct ClusterConfig {
  std::string server;  // https://host:port, no trailing slash
  std::string ca_pem;  // empty: the system's trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;
  std::string token_file;  // re-read on every request batch, so a rotated token is picked up
  std::string username;
  std::string password;
  std::optional<ExecPlugin> exec;
  std::string namespace_name;  // the context's namespace, "default" when unset
  std::string context_name;    // for messages
  std::string source;          // the kubeconfig path(s) or "in-cluster", for messages
};

inline constexpr const char* k_default_service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";

struct ConfigRequest {
  std::string kubeconfig;      // --kubeconfig; empty: KUBECONFIG, then ~/.kube/config, then in-cluster
  std::string context;         // --context; empty: current-context
  std::string kubeconfig_env;  // the value of KUBECONFIG
  std::string home;            // $HOME
  std::string
      service_account_dir;   // where in-cluster token, ca.crt and namespace live (OPCTL_SERVICEACCOUNT_DIR)
  std::string service_host;  // KUBERNETES_SERVICE_HOST
  std::string service_port;  // KUBERNETES_SERVICE_PORT
};

// The request filled from the process environment.
ConfigRequest config_request_from_environment(std::string kubeconfig, std::string context);

// Resolves the cluster to talk to, following kubectl's rules. Throws
// opctl::Error (invalid_input) naming the file and what is wrong.
ClusterConfig load_cluster_config(const ConfigRequest& request);

}  // namespace opctl::kube
