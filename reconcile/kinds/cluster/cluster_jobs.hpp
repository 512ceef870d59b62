// The Jobs a pass runs against an instance's volume while no Pod uses it:
// restoring a Backup's artifact into the first instance, upgrading the data
// directory to a new major version (pg_upgrade), and the cold final backup
// taken when the Cluster is deleted. Each script refuses to do harm twice: it
// recognises work already done and never writes over an existing database.
#pragma once

#include <string>

#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/cluster/cluster_status.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

struct RestoreJobOptions {
  int serial = 1;
  std::string backup;
  model::Json backup_volume;  // a Pod volume source
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

}  // namespace opctl::kinds::cluster
