#include "kinds/cluster/backup_contract.hpp"

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/conditions.hpp"

namespace opctl::kinds::cluster {

using model::Json;

model::GroupVersionKind backup_kind() {
  return {k_group, k_version, "Backup"};
}

std::string wal_archive_directory(const std::string& backup) {
  return std::string(k_backup_mount) + "/" + backup + "/wal";
}

std::optional<Json> backup_target_volume(const Json& backup) {
  Json::json_pointer target_pointer("/spec/target");
  if (!backup.contains(target_pointer) || !backup[target_pointer].is_object()) return std::nullopt;
  const Json& target = backup[target_pointer];
  if (target.contains("pvc") && target["pvc"].is_string())
    return Json{{"persistentVolumeClaim", {{"claimName", target["pvc"]}}}};
  if (target.contains("persistentVolumeClaim") && target["persistentVolumeClaim"].is_object() &&
      target["persistentVolumeClaim"].contains("claimName"))
    return Json{{"persistentVolumeClaim", {{"claimName", target["persistentVolumeClaim"]["claimName"]}}}};
  if (target.contains("volume") && target["volume"].is_object() && !target["volume"].empty())
    return target["volume"];
  return std::nullopt;
}

std::optional<ObjectStore> backup_object_store(const Json& backup) {
  if (!backup.contains("spec")) return std::nullopt;
  return read_object_store(backup["spec"]);
}

BackupReadiness backup_readiness(const Json& backup) {
  Json::json_pointer last_success("/status/lastSuccessfulTime");
  if (backup.contains(last_success) && backup[last_success].is_string() &&
      !backup[last_success].get<std::string>().empty())
    return {BackupState::usable, "last succeeded at " + backup[last_success].get<std::string>()};
  Json::json_pointer conditions("/status/conditions");
  bool reconciled =
      backup.contains(conditions) && backup[conditions].is_array() && !backup[conditions].empty();
  const Json* progressing = find_condition(backup, "Progressing");
  if (!reconciled || (progressing != nullptr && progressing->value("status", "") == "True"))
    return {BackupState::pending, "has not completed a backup yet"};
  for (const char* type : {"Degraded", "Failed"}) {
    const Json* condition = find_condition(backup, type);
    if (condition == nullptr || condition->value("status", "") != "True") continue;
    // A Backup whose Cluster is gone still holds what was written before,
    // the Cluster's final backup above all; so does a store Backup whose
    // Cluster (another one of the same name, a restore) archives elsewhere.
    std::string reason = condition->value("reason", "");
    if (reason == "ClusterNotFound" || reason == "WalArchiveRequired") break;
    return {BackupState::failed, condition->value("message", condition->value("reason", "failed"))};
  }
  return {
      BackupState::unverified,
      "has no successful backup on record; the restore Job restores what its volume holds (a final backup, "
      "or artifacts put there by hand) and fails if there is nothing"};
}

const Json* find_backup(const std::vector<Json>& related, const std::string& name) {
  for (const auto& object : related)
    if (object.value("kind", "") == "Backup" && object.contains("metadata") &&
        object["metadata"].value("name", "") == name)
      return &object;
  return nullptr;
}

}  // namespace opctl::kinds::cluster
