#include "kinds/cluster/cluster_monitoring.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <utility>

namespace opctl::kinds::cluster {
namespace {

using model::Json;
using schema::Schema;

constexpr const char* k_queries_volume = "custom-queries";

// A ConfigMap name is a DNS subdomain; a key is what a ConfigMap allows.
constexpr const char* k_config_map_name_pattern =
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
constexpr const char* k_config_map_key_pattern = "^[-._a-zA-Z0-9]+$";

std::string check_unique_references(const Json& value) {
  if (!value.is_array()) return "";
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& entry : value) {
    if (!entry.is_object()) continue;
    std::pair<std::string, std::string> reference = {entry.value("name", ""), entry.value("key", "")};
    if (!seen.insert(reference).second)
      return fmt::format("ConfigMap {} key {} is named twice", reference.first, reference.second);
  }
  return "";
}

}  // namespace

Schema monitoring_schema() {
  auto reference =
      Schema::object()
          .describe("a key of a ConfigMap in the Cluster's namespace")
          .field(
              "name",
              Schema::string()
                  .describe("the ConfigMap's name")
                  .max_length(253)
                  .pattern(k_config_map_name_pattern, "a DNS subdomain: lowercase letters, digits, '-', '.'"),
              true)
          .field("key",
                 Schema::string()
                     .describe("the key whose value holds the queries (postgres_exporter's YAML format)")
                     .max_length(253)
                     .pattern(k_config_map_key_pattern, "letters, digits, '-', '_' and '.'"),
                 true);
  return Schema::object()
      .describe(
          "the Prometheus exporter of every instance (port 9187, named metrics; opctl-cluster-kind(5), "
          "MONITORING)")
      .field("customQueriesConfigMap",
             Schema::array(std::move(reference))
                 .describe("ConfigMap keys with custom queries, run at every scrape as well as the default "
                           "metrics; a change reaches the instances without a restart")
                 .check(check_unique_references));
}

MonitoringSpec monitoring_spec(const Json& spec) {
  MonitoringSpec out;
  if (!spec.is_object() || !spec.contains("monitoring") || !spec["monitoring"].is_object()) return out;
  const Json& monitoring = spec["monitoring"];
  if (!monitoring.contains("customQueriesConfigMap") || !monitoring["customQueriesConfigMap"].is_array())
    return out;
  for (const auto& entry : monitoring["customQueriesConfigMap"])
    if (entry.is_object()) out.custom_queries.push_back({entry.value("name", ""), entry.value("key", "")});
  return out;
}

std::string missing_custom_queries(const MonitoringSpec& monitoring, const std::string& namespace_name,
                                   const std::vector<Json>& related) {
  std::vector<std::string> missing;
  for (const ConfigMapKey& reference : monitoring.custom_queries) {
    const Json* found = nullptr;
    for (const Json& object : related)
      if (object.value("kind", "") == "ConfigMap" && object.value("apiVersion", "") == "v1" &&
          object["metadata"].value("name", "") == reference.name &&
          object["metadata"].value("namespace", namespace_name) == namespace_name)
        found = &object;
    if (found == nullptr)
      missing.push_back(fmt::format("ConfigMap {} does not exist", reference.name));
    else if (!found->contains("data") || !(*found)["data"].is_object() ||
             !(*found)["data"].contains(reference.key))
      missing.push_back(fmt::format("ConfigMap {} has no key {}", reference.name, reference.key));
  }
  return fmt::format("{}", fmt::join(missing, "; "));
}

std::string queries_file(std::size_t index, const ConfigMapKey& reference) {
  return fmt::format("{:02}-{}-{}.yaml", index, reference.name, reference.key);
}

void apply_monitoring_to_container(const MonitoringSpec& monitoring, Json& container) {
  container["ports"].push_back(
      {{"name", k_metrics_port_name}, {"containerPort", k_metrics_port}, {"protocol", "TCP"}});
  if (monitoring.custom_queries.empty()) return;
  container["env"].push_back({{"name", "OPCTL_METRICS_QUERIES_DIR"}, {"value", k_queries_mount}});
  container["volumeMounts"].push_back(
      {{"name", k_queries_volume}, {"mountPath", k_queries_mount}, {"readOnly", true}});
}

void apply_monitoring_to_pod(const MonitoringSpec& monitoring, Json& pod_spec) {
  if (monitoring.custom_queries.empty()) return;
  Json sources = Json::array();
  for (std::size_t i = 0; i < monitoring.custom_queries.size(); ++i) {
    const ConfigMapKey& reference = monitoring.custom_queries[i];
    sources.push_back(
        {{"configMap",
          {{"name", reference.name},
           {"optional", true},
           {"items", Json::array({{{"key", reference.key}, {"path", queries_file(i, reference)}}})}}}});
  }
  pod_spec["volumes"].push_back({{"name", k_queries_volume}, {"projected", {{"sources", sources}}}});
}

}  // namespace opctl::kinds::cluster
