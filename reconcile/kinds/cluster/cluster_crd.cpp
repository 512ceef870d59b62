#include "kinds/cluster/cluster_crd.hpp"

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/schema/schema.hpp"

namespace opctl::kinds::cluster {

model::Json cluster_crd() {
  schema::CrdNames names{k_group, k_version, "Cluster", "clusters", "cluster", {}, {"opctl"}};
  std::vector<schema::PrinterColumn> columns = {
      {"Instances", "integer", ".status.instances", "instances with a volume", 0},
      {"Ready", "integer", ".status.readyInstances", "instances whose Pod is Ready", 0},
      {"Status", "string", ".status.phase", "what the last pass did or waits for", 0},
      {"Primary", "string", ".status.currentPrimary", "the instance -rw selects", 0},
      {"Image", "string", ".spec.imageName", "", 1},
      {"Age", "date", ".metadata.creationTimestamp", "", 0},
  };
  return schema::custom_resource_definition(names, cluster_spec_schema(), cluster_status_schema(), columns);
}

}  // namespace opctl::kinds::cluster
