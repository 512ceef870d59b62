// Reading one Cluster with what belongs to it, for the `opctl cluster`
// commands: its children by the owner label the pass puts on them (Pods,
// volumes, Secrets, Jobs, the primary Lease, Services, budgets), and the
// Backups of its namespace.
#pragma once

#include <string>
#include <vector>

#include "kube/api_client.hpp"
#include "model/object.hpp"

namespace opctl::cli {

struct ClusterObjects {
  std::string namespace_name;
  model::Json cluster;
  std::vector<model::Json> children;
  std::vector<model::Json> backups;  // every Backup of the namespace; empty when the kind is not served
};

// A ClusterError when the Cluster does not exist (or the CRD is not
// installed), an ApiError when a read fails.
ClusterObjects read_cluster_objects(kube::ApiClient& client, const std::string& namespace_name,
                                    const std::string& name);

// "2" or "db-2" -> "db-2"; an InvalidInputError naming `flag` for anything else.
std::string instance_argument(const std::string& cluster, const std::string& given, const char* flag);

}  // namespace opctl::cli
