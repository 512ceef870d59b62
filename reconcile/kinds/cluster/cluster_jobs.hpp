// The Jobs a pass runs against an instance's volume while no Pod uses it:
// restoring a Backup's artifact into the first instance, upgrading the data
// directory to a new major version (pg_upgrade), and the cold final backup
// taken when the Cluster is deleted. Each script refuses to do harm twice: it
// recognises work already done and never writes over an existing database.
#pragma once

#include <optional>
#include <string>

#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/cluster/cluster_status.hpp"
#include "kinds/object_store.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

struct RestoreJobOptions {
  int serial = 1;
  std::string backup;
  model::Json backup_volume;  // a Pod volume source; null for a store
  // A Backup to an object store: the store, and the Cluster whose folder in it is restored (the Backup's
  // spec.cluster).
  std::optional<ObjectStore> store;
  std::string source_cluster;
};
model::Json build_restore_job(const ClusterSpec& spec, const RestoreJobOptions& options);

// pg_upgrade --link on the volume of `upgrade.primary`, the old binaries copied
// in by an init container running the old image.
model::Json build_major_upgrade_job(const ClusterSpec& spec, const MajorUpgradeStatus& upgrade);

struct FinalBackupJobOptions {
  std::string instance;  // whose volume is backed up (the primary)
  std::string image;     // the image the data directory belongs to
  std::string backup;
  model::Json backup_volume;
  std::string stamp;  // the artifact directory's name, e.g. 20261129T160500Z
};
model::Json build_final_backup_job(const ClusterSpec& spec, const FinalBackupJobOptions& options);

// The final backup to an object store: a Job asking the running primary for a base backup
// (kinds::store_backup_pod_template), named final_backup_job(spec.name).
model::Json build_final_store_backup_job(const ClusterSpec& spec, const ObjectStore& store,
                                         const std::string& backup, const std::string& image);

}  // namespace opctl::kinds::cluster
