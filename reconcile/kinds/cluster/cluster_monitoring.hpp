// spec.monitoring: the exporter every instance's manager runs on port 9187
// (opctl-cluster-kind(5), MONITORING) and the ConfigMaps of custom queries it
// reads, with CloudNativePG's field names. The schema, the parsed form, and
// what it adds to an instance's container and Pod.
#pragma once

#include <string>
#include <vector>

#include "kinds/schema/schema.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

inline constexpr int k_metrics_port = 9187;
inline constexpr const char* k_metrics_port_name = "metrics";
// Where an instance finds the custom queries: one file per reference.
inline constexpr const char* k_queries_mount = "/etc/opctl/queries";

struct ConfigMapKey {
  std::string name;
  std::string key;
  bool operator==(const ConfigMapKey&) const = default;
};

struct MonitoringSpec {
  std::vector<ConfigMapKey> custom_queries;  // spec.monitoring.customQueriesConfigMap
};

schema::Schema monitoring_schema();
// From a Cluster resource's spec (absent: no custom queries).
MonitoringSpec monitoring_spec(const model::Json& spec);

// The references whose ConfigMap, or whose key in it, is not among the live
// `related` objects: "ConfigMap NAME has no key KEY" joined by "; "; empty when all are there.
std::string missing_custom_queries(const MonitoringSpec& monitoring, const std::string& namespace_name,
                                   const std::vector<model::Json>& related);

// The file a reference is mounted as under k_queries_mount: its position and
// names, so two references never share a file.
std::string queries_file(std::size_t index, const ConfigMapKey& reference);

// Into the instance container: the port `metrics`, and with custom queries
// the volume mount and OPCTL_METRICS_QUERIES_DIR.
void apply_monitoring_to_container(const MonitoringSpec& monitoring, model::Json& container);
// Into the Pod: the projected volume of the ConfigMaps (optional: a missing
// ConfigMap or key is no file, and the Pod still starts; the pass reports it).
void apply_monitoring_to_pod(const MonitoringSpec& monitoring, model::Json& pod_spec);

}  // namespace opctl::kinds::cluster
