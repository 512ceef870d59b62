// What a Cluster reads of a Backup (kinds/backup), agreed through the
// Backup's spec and status rather than its code: the volume its artifacts live
// on, and whether it has a usable artifact. Artifacts are directories
// /backups/<backup-name>/<timestamp>/ on that volume (mounted at /backups)
// holding base.tar[.gz] (+ pg_wal.tar[.gz]) or a pg_dump *.dump.
#pragma once

#include <optional>
#include <string>

#include "kinds/kind_reconciler.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

inline constexpr const char* k_backup_mount = "/backups";

model::GroupVersionKind backup_kind();

// The Pod volume source of the Backup's target: spec.target.pvc (a claim
// name), spec.target.persistentVolumeClaim.claimName, or spec.target.volume
// (any volume source). nullopt when the Backup names none of them.
std::optional<model::Json> backup_target_volume(const model::Json& backup);

enum class BackupState { usable, pending, failed };
struct BackupReadiness {
  BackupState state = BackupState::pending;
  std::string message;
};
// usable once status.lastSuccessfulTime is set; failed when its Degraded (or
// Failed) condition is True and nothing ever succeeded; pending otherwise.
BackupReadiness backup_readiness(const model::Json& backup);

// The Backup of this name among the related objects; nullptr when absent.
const model::Json* find_backup(const std::vector<model::Json>& related, const std::string& name);

}  // namespace opctl::kinds::cluster
