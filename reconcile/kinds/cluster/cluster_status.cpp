#include "kinds/cluster/cluster_status.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

std::string text(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

int number(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_number_integer()
             ? object[key].get<int>()
             : 0;
}

const Json* object_at(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_object() ? &object[key] : nullptr;
}

std::vector<std::string> strings(const Json& object, const char* key) {
  std::vector<std::string> out;
  if (object.is_object() && object.contains(key) && object[key].is_array())
    for (const auto& item : object[key])
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

// Leaves out empty strings and zeros, so a cleared field disappears from the status.
void put(Json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}
void put(Json& out, const char* key, int value) {
  if (value != 0) out[key] = value;
}

}  // namespace

ClusterStatus ClusterStatus::from_json(const Json& status) {
  ClusterStatus out;
  out.latest_generated_node = number(status, "latestGeneratedNode");
  out.current_primary = text(status, "currentPrimary");
  out.current_primary_timestamp = text(status, "currentPrimaryTimestamp");
  out.target_primary = text(status, "targetPrimary");
  out.target_primary_timestamp = text(status, "targetPrimaryTimestamp");
  out.failing_since = text(status, "currentPrimaryFailingSinceTimestamp");
  if (const Json* info = object_at(status, "pgDataImageInfo")) {
    out.data_image = text(*info, "image");
    out.data_major = number(*info, "majorVersion");
  }
  out.restarting_primary = text(status, "restartingPrimary");
  if (const Json* recovery = object_at(status, "recovery"))
    out.recovery = RecoveryStatus{text(*recovery, "backup"), text(*recovery, "job"), text(*recovery, "phase"),
                                  text(*recovery, "completedAt")};
  if (const Json* upgrade = object_at(status, "majorUpgrade"))
    out.major_upgrade = MajorUpgradeStatus{text(*upgrade, "fromImage"),   text(*upgrade, "toImage"),
                                           number(*upgrade, "fromMajor"), number(*upgrade, "toMajor"),
                                           text(*upgrade, "primary"),     text(*upgrade, "job"),
                                           text(*upgrade, "phase")};
  if (const Json* final_backup = object_at(status, "finalBackup"))
    out.final_backup = FinalBackupStatus{text(*final_backup, "backup"), text(*final_backup, "job"),
                                         text(*final_backup, "phase")};
  out.last_promote_request = text(status, "lastPromoteRequest");
  out.last_restart_request = text(status, "lastRestartRequest");
  out.hibernated = status.is_object() && status.contains("hibernated") && status["hibernated"].is_boolean() &&
                   status["hibernated"].get<bool>();
  if (const Json* configuration = object_at(status, "configuration")) {
    out.configuration.hash = text(*configuration, "hash");
    out.configuration.phase = text(*configuration, "phase");
    out.configuration.applied_by = text(*configuration, "appliedBy");
    out.configuration.pending_restart = strings(*configuration, "pendingRestart");
    out.configuration.restart_parameters = strings(*configuration, "restartParameters");
  }
  return out;
}

Json ClusterStatus::to_json() const {
  Json out = {
      {"instances", instances}, {"readyInstances", ready_instances}, {"instanceNames", instance_names}};
  put(out, "latestGeneratedNode", latest_generated_node);
  put(out, "currentPrimary", current_primary);
  put(out, "currentPrimaryTimestamp", current_primary_timestamp);
  put(out, "targetPrimary", target_primary);
  put(out, "targetPrimaryTimestamp", target_primary_timestamp);
  put(out, "currentPrimaryFailingSinceTimestamp", failing_since);
  if (!data_image.empty()) out["pgDataImageInfo"] = {{"image", data_image}, {"majorVersion", data_major}};
  put(out, "restartingPrimary", restarting_primary);
  if (recovery) {
    Json entry = Json::object();
    put(entry, "backup", recovery->backup);
    put(entry, "job", recovery->job);
    put(entry, "phase", recovery->phase);
    put(entry, "completedAt", recovery->completed_at);
    out["recovery"] = entry;
  }
  if (major_upgrade) {
    Json entry = Json::object();
    put(entry, "fromImage", major_upgrade->from_image);
    put(entry, "toImage", major_upgrade->to_image);
    put(entry, "fromMajor", major_upgrade->from_major);
    put(entry, "toMajor", major_upgrade->to_major);
    put(entry, "primary", major_upgrade->primary);
    put(entry, "job", major_upgrade->job);
    put(entry, "phase", major_upgrade->phase);
    out["majorUpgrade"] = entry;
  }
  if (final_backup) {
    Json entry = Json::object();
    put(entry, "backup", final_backup->backup);
    put(entry, "job", final_backup->job);
    put(entry, "phase", final_backup->phase);
    out["finalBackup"] = entry;
  }
  if (!instance_states.empty()) out["instanceStates"] = instance_states;
  put(out, "lastPromoteRequest", last_promote_request);
  put(out, "lastRestartRequest", last_restart_request);
  if (hibernated) out["hibernated"] = true;
  if (!configuration.hash.empty()) {
    Json entry = {{"hash", configuration.hash}};
    put(entry, "phase", configuration.phase);
    put(entry, "appliedBy", configuration.applied_by);
    if (!configuration.pending_restart.empty()) entry["pendingRestart"] = configuration.pending_restart;
    if (!configuration.restart_parameters.empty())
      entry["restartParameters"] = configuration.restart_parameters;
    out["configuration"] = entry;
  }
  if (!managed_roles.is_null()) out["managedRolesStatus"] = managed_roles;
  if (!managed_databases.is_null()) out["managedDatabasesStatus"] = managed_databases;
  if (!wal_archive.is_null()) out["walArchive"] = wal_archive;
  put(out, "phase", phase);
  put(out, "phaseReason", phase_reason);
  return out;
}

}  // namespace opctl::kinds::cluster
