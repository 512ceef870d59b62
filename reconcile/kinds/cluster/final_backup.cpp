// Deleting a Cluster: the finalizer opctl.io/final-backup holds the children
// until a final backup is safe. The instances stop (nothing writes any more),
// a Job copies the primary's data directory into the spec.finalBackup Backup's
// target as /backups/<backup>/<timestamp>/base.tar.gz, and only when it has
// succeeded does the pass drop the finalizer, letting the garbage collector
// remove the children. A failed or impossible backup keeps the Cluster.
#include <fmt/format.h>

#include "kinds/cluster/backup_contract.hpp"
#include "kinds/cluster/cluster_jobs.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {

using model::Json;

namespace {

// 2026-11-29T16:05:00Z -> 20261129T160500Z, a directory name without colons.
std::string artifact_stamp(TimePoint now) {
  std::string stamp;
  for (char c : format_time(now))
    if (c != '-' && c != ':') stamp.push_back(c);
  return stamp;
}

constexpr const char* k_skip_hint =
    "remove the finalizer opctl.io/final-backup to delete without a final backup";

}  // namespace

void ClusterPass::finalize() {
  plan_.finalizers = {k_final_backup_finalizer};
  plan_.emit_children = false;
  if (spec_.final_backup.empty()) {
    plan_.finalizers.clear();
    progress("Deleting", "", "no spec.finalBackup: deleting without a final backup");
    return;
  }
  std::string primary = status_.current_primary.empty() ? status_.target_primary : status_.current_primary;
  const Instance* instance = view_.find(primary);
  std::string job_name = final_backup_job(spec_.name);
  auto job = view_.jobs.find(job_name);
  if (job == view_.jobs.end() && (instance == nullptr || !instance->volume_usable())) {
    plan_.finalizers.clear();
    progress("Deleting", "",
             fmt::format("no instance volume holds data (primary: {}); nothing to back up",
                         primary.empty() ? "none" : primary));
    return;
  }
  status_.final_backup = FinalBackupStatus{spec_.final_backup, job_name, "StoppingInstances"};
  FinalBackupStatus& final_backup = *status_.final_backup;
  if (job != view_.jobs.end()) {
    switch (job_state(*job->second)) {
      case JobState::succeeded:
        final_backup.phase = "Completed";
        plan_.finalizers.clear();
        progress(
            "Deleting", "",
            fmt::format("final backup of {} written to Backup {}; deleting", primary, spec_.final_backup));
        return;
      case JobState::failed:
        final_backup.phase = "Failed";
        block("FinalBackup", "FinalBackupFailed",
              fmt::format("final backup Job {} failed ({}); the Cluster stays until it "
                          "succeeds: delete the Job to retry, or {}",
                          job_name, job_failure(*job->second), k_skip_hint));
        return;
      case JobState::running:
        final_backup.phase = "Running";
        progress("FinalBackup", "BackingUp",
                 fmt::format("Job {} backs up {} into Backup {}", job_name, primary, spec_.final_backup));
        requeue(std::chrono::seconds(10));
        return;
    }
  }
  BackupProblem problem;
  const Json* backup = backup_for(spec_.final_backup, "spec.finalBackup", problem);
  if (backup == nullptr) {
    block("FinalBackup", "FinalBackupTargetMissing",
          fmt::format("{}; the Cluster stays until it can be backed up: {}", problem.message, k_skip_hint));
    requeue(std::chrono::seconds(30));
    return;
  }
  if (auto store = backup_object_store(*backup)) {
    final_store_backup(*store, primary, job_name);
    return;
  }
  for (const auto& [serial, member] : view_.instances) {
    if (member.pod == nullptr) continue;
    // Stop every instance first, so the copy is consistent; everything else stays listed.
    plan_.emit_children = true;
    plan_.stop_all = true;
    progress("FinalBackup", "StoppingInstances",
             fmt::format("stopping every instance before the final backup of {}", primary));
    requeue(std::chrono::seconds(5));
    return;
  }
  final_backup.phase = "Running";
  plan_.jobs.push_back(build_final_backup_job(spec_, {primary, status_.data_image, spec_.final_backup,
                                                      *backup_target_volume(*backup), artifact_stamp(now_)}));
  progress("FinalBackup", "BackingUp",
           fmt::format("Job {} backs up {} into Backup {}", job_name, primary, spec_.final_backup));
  requeue(std::chrono::seconds(10));
}

// To an object store the final backup is a base backup the running primary takes (barman-cloud-backup reads
// a live PGDATA, and its WAL goes to the archive beside it), asked for by a Job like a Backup's own: the
// instances keep running until it succeeded, then the garbage collector stops them.
void ClusterPass::final_store_backup(const ObjectStore& store, const std::string& primary,
                                     const std::string& job_name) {
  if (spec_.wal_archive_backup != spec_.final_backup) {
    block("FinalBackup", "FinalBackupNeedsWalArchive",
          fmt::format(
              "Backup {} writes to an object store, where a base backup needs the Cluster's WAL archive "
              "beside it, but spec.walArchive names {}; the Cluster stays: {}",
              spec_.final_backup, spec_.wal_archive_backup.empty() ? "none" : spec_.wal_archive_backup,
              k_skip_hint));
    return;
  }
  status_.final_backup->phase = "Running";
  plan_.jobs.push_back(build_final_store_backup_job(spec_, store, spec_.final_backup, status_.data_image));
  progress(
      "FinalBackup", "BackingUp",
      fmt::format("Job {} asks {} for a base backup into Backup {}", job_name, primary, spec_.final_backup));
  requeue(std::chrono::seconds(10));
}

}  // namespace opctl::kinds::cluster
