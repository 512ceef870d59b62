// The first instance of a Cluster: an empty database (initdb, done by the
// instance itself), or the latest artifact of a Backup restored into its
// volume by a Job before its Pod may start. A missing or failed Backup leaves
// the Cluster Degraded: an empty database is never started in its place.
#include <fmt/format.h>

#include "kinds/cluster/backup_contract.hpp"
#include "kinds/cluster/cluster_jobs.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {

using model::Json;

namespace {

RestoreJobOptions restore_options(int serial, const std::string& backup_name, const Json& backup) {
  RestoreJobOptions options{serial, backup_name, Json(), std::nullopt, ""};
  if (auto store = backup_object_store(backup)) {
    options.store = std::move(store);
    Json::json_pointer cluster("/spec/cluster");
    options.source_cluster =
        backup.contains(cluster) && backup[cluster].is_string() ? backup[cluster].get<std::string>() : "";
  } else {
    options.backup_volume = *backup_target_volume(backup);
  }
  return options;
}

}  // namespace

bool ClusterPass::bootstrap() {
  bool recovering = status_.recovery ? status_.recovery->phase != "Completed"
                                     : !spec_.recovery_backup.empty() && status_.current_primary.empty();
  if (!view_.instances.empty() && !recovering) return false;
  if (view_.instances.empty() && !status_.current_primary.empty()) {
    block("Degraded", "VolumesLost",
          fmt::format("the volumes of every instance are gone (the primary was {}); not starting an "
                      "empty database in their place: delete and recreate the Cluster, or restore "
                      "it from a Backup",
                      status_.current_primary));
    return true;
  }
  if (recovering) return recover();
  int serial = ++status_.latest_generated_node;
  std::string name = instance_name(spec_.name, serial);
  plan_.new_instance = serial;
  set_target(name);
  plan_.primary = name;
  progress("SettingUpPrimary", "Bootstrapping",
           fmt::format("creating {} as the primary of a new database", name));
  requeue(std::chrono::seconds(10));
  return true;
}

bool ClusterPass::recover() {
  std::string backup_name = status_.recovery ? status_.recovery->backup : spec_.recovery_backup;
  if (!view_.instances.empty()) return recovery_job_step(view_.instances.begin()->second);

  BackupProblem problem;
  const Json* backup = backup_for(backup_name, "spec.bootstrap.recovery", problem);
  if (backup == nullptr) {
    block("Restoring", problem.reason, problem.message + "; no empty database is started in its place");
    requeue(std::chrono::seconds(30));
    return true;
  }
  BackupReadiness readiness = backup_readiness(*backup);
  if (readiness.state == BackupState::failed) {
    block("Restoring", "BackupFailed",
          fmt::format("Backup {} failed ({}); no empty database is started in its place", backup_name,
                      readiness.message));
    requeue(std::chrono::seconds(30));
    return true;
  }
  if (readiness.state == BackupState::pending) {
    progress("Restoring", "WaitingForBackup", fmt::format("Backup {} {}", backup_name, readiness.message));
    requeue(std::chrono::seconds(30));
    return true;
  }
  int serial = ++status_.latest_generated_node;
  std::string name = instance_name(spec_.name, serial);
  plan_.new_instance = serial;
  plan_.new_instance_pod = false;
  plan_.jobs.push_back(build_restore_job(spec_, restore_options(serial, backup_name, *backup)));
  status_.recovery = RecoveryStatus{backup_name, restore_job(spec_.name, serial), "Restoring", ""};
  set_target(name);
  plan_.primary = name;
  progress("Restoring", "Restoring",
           fmt::format("restoring the latest artifact of Backup {} into {} before starting it", backup_name,
                       name));
  requeue(std::chrono::seconds(10));
  return true;
}

bool ClusterPass::recovery_job_step(const Instance& first) {
  if (!status_.recovery) status_.recovery = RecoveryStatus{spec_.recovery_backup, "", "Restoring", ""};
  RecoveryStatus& recovery = *status_.recovery;
  if (recovery.job.empty()) recovery.job = restore_job(spec_.name, first.serial);
  set_target(first.name);
  plan_.primary = first.name;
  if (first.pod != nullptr) {  // the Pod only starts after a restore, so it finished on an earlier pass
    recovery.phase = "Completed";
    if (recovery.completed_at.empty()) recovery.completed_at = format_time(now_);
    return false;
  }
  auto found = view_.jobs.find(recovery.job);
  if (found == view_.jobs.end()) {
    // Never created, or deleted to retry: the script recognises a finished restore and never overwrites a
    // database.
    BackupProblem problem;
    const Json* backup = backup_for(recovery.backup, "spec.bootstrap.recovery", problem);
    plan_.hold.insert(first.serial);
    if (backup == nullptr) {
      block("Restoring", problem.reason, problem.message + "; no empty database is started in its place");
      requeue(std::chrono::seconds(30));
      return true;
    }
    plan_.jobs.push_back(build_restore_job(spec_, restore_options(first.serial, recovery.backup, *backup)));
    recovery.phase = "Restoring";
    progress("Restoring", "Restoring",
             fmt::format("restoring Backup {} into {}", recovery.backup, first.name));
    requeue(std::chrono::seconds(10));
    return true;
  }
  const Json& job = *found->second;
  switch (job_state(job)) {
    case JobState::running:
      plan_.jobs.push_back(carry_over_job(job));
      plan_.hold.insert(first.serial);
      progress("Restoring", "Restoring",
               fmt::format("restore Job {} is restoring Backup {} into {}", recovery.job, recovery.backup,
                           first.name));
      requeue(std::chrono::seconds(10));
      return true;
    case JobState::failed:
      plan_.jobs.push_back(carry_over_job(job));
      plan_.hold.insert(first.serial);
      recovery.phase = "Failed";
      block("Restoring", "RestoreFailed",
            fmt::format("restore Job {} failed ({}); no empty database is started in its place: "
                        "delete the Job to retry",
                        recovery.job, job_failure(job)));
      return true;
    case JobState::succeeded:
      break;
  }
  recovery.phase = "Completed";
  recovery.completed_at = format_time(now_);
  progress("SettingUpPrimary", "Restored",
           fmt::format("restored Backup {}; starting {} as the primary", recovery.backup, first.name));
  requeue(std::chrono::seconds(10));
  return true;
}

}  // namespace opctl::kinds::cluster
