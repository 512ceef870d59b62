#include "kinds/cluster/cluster_metrics.hpp"

#include "kinds/kind_time.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

std::string string_at(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

int int_at(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

std::vector<apply::InstanceMetrics> instances_of(const Json& status) {
  std::vector<apply::InstanceMetrics> out;
  auto states = status.find("instanceStates");
  if (states == status.end() || !states->is_array()) return out;
  for (const Json& state : *states) {
    if (!state.is_object()) continue;
    apply::InstanceMetrics instance{string_at(state, "name"), state.value("ready", false), std::nullopt};
    // The status writes lagBytes only for a replica whose replay LSN and its primary's LSN are both known.
    if (auto lag = state.find("lagBytes"); lag != state.end() && lag->is_number_unsigned())
      instance.lag_bytes = lag->get<std::uint64_t>();
    else if (lag != state.end() && lag->is_number_integer() && lag->get<std::int64_t>() >= 0)
      instance.lag_bytes = static_cast<std::uint64_t>(lag->get<std::int64_t>());
    out.push_back(std::move(instance));
  }
  return out;
}

bool names_cluster(const Json& backup, const std::string& namespace_name, const std::string& name) {
  const Json& metadata = backup.value("metadata", Json::object());
  return string_at(metadata, "namespace") == namespace_name &&
         string_at(backup.value("spec", Json::object()), "cluster") == name;
}

}  // namespace

apply::ClusterMetrics cluster_metrics(const Json& cluster, const std::vector<Json>& backups) {
  const Json& metadata = cluster.value("metadata", Json::object());
  const Json& status = cluster.value("status", Json::object());
  apply::ClusterMetrics out;
  out.namespace_name = string_at(metadata, "namespace");
  out.name = string_at(metadata, "name");
  out.instances = int_at(status, "instances");
  out.ready_instances = int_at(status, "readyInstances");
  out.primary = string_at(status, "currentPrimary");
  out.instance_states = instances_of(status);
  for (const Json& backup : backups) {
    if (!names_cluster(backup, out.namespace_name, out.name)) continue;
    auto finished = parse_time(string_at(backup.value("status", Json::object()), "lastSuccessfulTime"));
    if (finished && (!out.last_backup || *finished > *out.last_backup)) out.last_backup = finished;
  }
  return out;
}

}  // namespace opctl::kinds::cluster
