// What a Cluster reads of a Backup (kinds/backup), agreed through the
// Backup's spec and status rather than its code: the volume its artifacts live
// on, and whether it has a usable artifact. Artifacts are directories
// /backups/<backup-name>/<timestamp>/ on that volume (mounted at /backups)
// holding base.tar[.gz] (+ pg_wal.tar[.gz]) or a pg_dump *.dump.
#pragma once

#include <optional>
#include <string>

#include "kinds/kind_reconciler.hpp"
#include "kinds/object_store.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

inline constexpr const char* k_backup_mount = "/backups";

model::GroupVersionKind backup_kind();

// Where a Cluster with spec.walArchive naming this Backup archives its WAL,
// and where a point-in-time restore from it reads: /backups/<backup>/wal.
std::string wal_archive_directory(const std::string& backup);

// The Pod volume source of the Backup's target: spec.target.pvc (a claim
// name), spec.target.persistentVolumeClaim.claimName, or spec.target.volume
// (any volume source). nullopt when the Backup names none of them.
std::optional<model::Json> backup_target_volume(const model::Json& backup);

// The object store of the Backup's target (spec.target.objectStore); nullopt for a volume.
std::optional<ObjectStore> backup_object_store(const model::Json& backup);

// usable: a backup succeeded (status.lastSuccessfulTime). pending: nothing
// succeeded yet and one is on its way (or the Backup was never reconciled):
// wait. failed: Degraded (or Failed) and nothing ever succeeded. unverified:
// nothing succeeded and nothing runs, e.g. a suspended schedule whose volume
// holds a Cluster's final backup, or a Backup whose Cluster was deleted: the
// restore Job looks at the volume itself.
enum class BackupState { usable, pending, failed, unverified };
struct BackupReadiness {
  BackupState state = BackupState::pending;
  std::string message;
};
BackupReadiness backup_readiness(const model::Json& backup);

// The Backup of this name among the related objects; nullptr when absent.
const model::Json* find_backup(const std::vector<model::Json>& related, const std::string& name);

}  // namespace opctl::kinds::cluster
