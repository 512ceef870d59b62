// The backup Job of a Backup whose target is an object store
// (`opctl instance backup`, in the instance image). Its Pod is the request
// (store_backups.hpp): it waits until the Cluster's primary answers for its
// Pod's uid on its own Pod (annotation opctl.io/backup-requests), then reads
// the store's list (barman-cloud-backup-list), deletes what the retention
// says (barman-cloud-backup-delete, which takes the WAL no remaining backup
// needs with it), and returns the termination message the Backup's status is
// read from. The store's keys reach the tools through the environment
// (secretKeyRef), never through opctl.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kube/api_client.hpp"
#include "model/object.hpp"

namespace opctl::instance {

struct StoreBackupJob {
  std::string namespace_name;
  std::string cluster;
  std::string pod_name;  // the backup's name in the store
  std::string pod_uid;   // what the primary answers for
  // barman-cloud-backup-list <options> --format json DEST SERVER, and
  // barman-cloud-backup-delete <options> DEST SERVER (the id is added).
  std::vector<std::string> list_command;
  std::vector<std::string> delete_command;
  std::optional<int> keep;
  std::optional<std::chrono::seconds> max_age;
  // How long to wait for any instance to answer before giving up (no primary,
  // or the Cluster does not archive to this store).
  std::chrono::seconds answer_timeout{600};
  std::chrono::seconds poll_period{3};
};

// Runs the Job; returns the termination message. Throws opctl::ClusterError
// with the reason when the backup failed or nobody answered.
model::Json run_store_backup_job(kube::ApiClient& client, const StoreBackupJob& job, std::ostream& log);

// The restore Job's first step (`opctl instance fetch-backup`): the base
// backup to start from (kinds::backup::pick_backup) fetched into `pgdata`.
struct StoreFetch {
  std::string backup_name;  // the Backup, for messages
  std::vector<std::string> list_command;
  std::vector<std::string> restore_command;  // barman-cloud-restore <options> DEST SERVER
  std::string target_time;                   // RFC 3339, or empty
  std::string target_lsn;                    // or empty
  std::string pgdata;
};
// Returns the backup id. Throws opctl::ClusterError when no backup qualifies
// or a tool failed.
std::string fetch_store_backup(const StoreFetch& fetch, std::ostream& log);

}  // namespace opctl::instance
