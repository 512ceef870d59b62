// The state a Cluster carries from one pass to the next, in its status: the
// pass is level-based, so everything else is recomputed from the children.
// Field names follow CloudNativePG's Cluster status where it has one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::kinds::cluster {

struct RecoveryStatus {
  std::string backup;
  std::string job;
  std::string phase;  // Restoring, Completed, Failed
  std::string completed_at;
};

struct MajorUpgradeStatus {
  std::string from_image;
  std::string to_image;
  int from_major = 0;
  int to_major = 0;
  std::string primary;  // the instance whose volume is upgraded
  std::string job;
  std::string phase;  // StoppingInstances, Upgrading, Failed
};

struct FinalBackupStatus {
  std::string backup;
  std::string job;
  std::string phase;  // StoppingInstances, Running, Completed, Failed
};

// Whether spec.postgresql (parameters, pg_hba, enableSuperuserAccess) is in
// force on every instance, and how it got there.
struct ConfigurationStatus {
  std::string hash;        // configuration_hash() of the spec it describes
  std::string phase;       // Applying, Applied
  std::string applied_by;  // Start (loaded at start), Reload, Restart (some parameter needed one)
  std::vector<std::string> pending_restart;     // instances that wait for a restart
  std::vector<std::string> restart_parameters;  // parameters a restart was (or is) needed for
};

struct ClusterStatus {
  int latest_generated_node = 0;
  std::string current_primary;
  std::string current_primary_timestamp;
  std::string target_primary;
  std::string target_primary_timestamp;
  std::string failing_since;  // currentPrimaryFailingSinceTimestamp
  std::string data_image;     // pgDataImageInfo.image
  int data_major = 0;         // pgDataImageInfo.majorVersion
  std::string restarting_primary;
  std::optional<RecoveryStatus> recovery;
  std::optional<MajorUpgradeStatus> major_upgrade;
  std::optional<FinalBackupStatus> final_backup;
  std::string last_promote_request;
  std::string last_restart_request;  // opctl.io/restart-instance, once acted upon
  // opctl.io/hibernation stopped the Pods: set from the first hibernating pass
  // until the primary serves again after waking, so the replicas wait for it.
  bool hibernated = false;
  ConfigurationStatus configuration;
  // managedRolesStatus and managedDatabasesStatus (managed_status()), computed by every pass; null when
  // nothing is managed.
  model::Json managed_roles;
  model::Json managed_databases;
  // spec.walArchive's Backup and what the primary's archiver last reported (pg_stat_archiver); null without
  // WAL archiving.
  model::Json wal_archive;

  // Computed by every pass, written for users and `kubectl get`.
  int instances = 0;
  int ready_instances = 0;
  std::vector<std::string> instance_names;
  model::Json instance_states = model::Json::array();  // what each instance's manager reports
  std::string phase;
  std::string phase_reason;

  static ClusterStatus from_json(const model::Json& status);
  model::Json to_json() const;
};

}  // namespace opctl::kinds::cluster
