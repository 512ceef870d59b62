#include "cluster_connection.hpp"

#include "build_info.hpp"

namespace opctl::cli {

kube::TransportOptions transport_options(const CommonOptions& options) {
  kube::TransportOptions transport;
  transport.user_agent = std::string("opctl/") + k_version;
  transport.concurrency = options.concurrency;
  transport.qps = options.qps.fixed;
  transport.burst = options.burst;
  transport.verbose = options.verbose;
  return transport;
}

ClusterConnection connect(const CommonOptions& options) {
  ClusterConnection connection;
  connection.config =
      kube::load_cluster_config(kube::config_request_from_environment(options.kubeconfig, options.context));
  if (connection.config.exec) connection.config.exec->timeout = exec_timeout(options);
  connection.transport = kube::make_curl_transport(connection.config, transport_options(options));
  connection.mapper = std::make_unique<kube::RestMapper>(*connection.transport);
  connection.client = std::make_unique<kube::ApiClient>(*connection.transport, *connection.mapper);
  return connection;
}

}  // namespace opctl::cli
