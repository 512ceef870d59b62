// What an object store holds for one Cluster, as barman-cloud-backup-list
// --format json says it, and the two decisions a backup Job makes from it
// after its backup: which backups the retention deletes, and the termination
// message the Backup's status is read from (the same shape as a volume
// target's: artifact, artifacts, artifactCount).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "kinds/kind_time.hpp"
#include "model/object.hpp"

namespace opctl::kinds::backup {

struct StoreBackup {
  std::string id;      // barman's backup id, e.g. 20261205T174135
  std::string name;    // --name: the backup Job's Pod
  std::string status;  // DONE, FAILED, STARTED ...
  std::optional<TimePoint> begin_time;
  std::optional<TimePoint> end_time;
  std::string begin_wal;
  std::string end_wal;
  std::string begin_lsn;
  std::string end_lsn;
  long long timeline = 0;
  long long size_bytes = 0;
  long long server_version = 0;  // e.g. 150010
};

// Reads barman-cloud-backup-list --format json ({"backups_list": [...]}),
// oldest first. Throws opctl::InvalidInputError when it is not that.
std::vector<StoreBackup> parse_store_backups(const std::string& json);

// The ids to delete, oldest first: of the completed (DONE) backups, newest
// first, those past the newest `keep` and those that ended before now minus
// `max_age`; a failed one once a later backup completed (as the volume
// target's Jobs) or when older than max_age. Never one still running. The
// WAL before the oldest backup left goes with them (barman-cloud-backup-delete
// removes the WAL no remaining backup needs).
std::vector<std::string> backups_to_delete(const std::vector<StoreBackup>& backups, std::optional<int> keep,
                                           std::optional<std::chrono::seconds> max_age, TimePoint now);

// The backup a restore starts from: the newest completed one, or with a
// target the newest completed one that ended before it (by end time for a
// target time, by end LSN for a target LSN: replaying the archive from there
// reaches the target). nullopt when none qualifies.
std::optional<StoreBackup> pick_backup(const std::vector<StoreBackup>& backups,
                                       std::optional<TimePoint> target_time, const std::string& target_lsn);

// The backup Job's termination message: {"artifact": <the backup taken>,
// "artifacts": [...completed, newest first, cut short to fit 4096 bytes],
// "artifactCount": n}. An artifact: name (the backup id), backupName, method
// "barman-cloud", pgMajor, timeline, startLsn, endLsn, startWalFile, endWalFile,
// startTime, endTime, and sizeBytes when the store knows it (Barman Cloud does not record one for its
// uploads).
model::Json store_termination_message(const StoreBackup& taken, const std::vector<StoreBackup>& left);

}  // namespace opctl::kinds::backup
