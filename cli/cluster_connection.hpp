// Wires the real API client together from the command-line flags.
#pragma once

#include <memory>

#include "common_options.hpp"
#include "kube/api_client.hpp"
#include "kube/cluster_config.hpp"

namespace opctl::cli {

struct ClusterConnection {
  kube::ClusterConfig config;
  std::unique_ptr<kube::HttpTransport> transport;
  std::unique_ptr<kube::RestMapper> mapper;
  std::unique_ptr<kube::ApiClient> client;

  // The namespace for objects that name none: -n, else the context's.
  std::string default_namespace(const CommonOptions& options) const {
    return options.namespace_name.empty() ? config.namespace_name : options.namespace_name;
  }
};

ClusterConnection connect(const CommonOptions& options);

// The transport settings of the flags (user agent, limits, -v), for every
// transport a command opens, the Lease's included, so -v logs them all.
kube::TransportOptions transport_options(const CommonOptions& options);

}  // namespace opctl::cli
