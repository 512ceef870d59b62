// An imageName change that crosses a PostgreSQL major version is not a
// rolling restart (a replica cannot stream from another major): every
// instance stops, a Job runs pg_upgrade --link on the primary's volume, the
// primary starts on the new version and the replicas, whose data is of the
// old major, are replaced by new ones cloned from it. A downgrade is refused.
// The succeeded Job stays until the next upgrade (or the Cluster's deletion),
// so that `kubectl logs job/NAME-upgrade-MAJOR` still shows what pg_upgrade did.
#include <fmt/format.h>

#include "kinds/cluster/cluster_jobs.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {

using model::Json;

bool ClusterPass::major_upgrade() {
  if (!status_.major_upgrade) {
    keep_last_upgrade_job();
    if (spec_.major_version == status_.data_major) return false;
    if (spec_.major_version < status_.data_major) {
      degrade("MajorDowngradeRefused",
              fmt::format(
                  "imageName {} is PostgreSQL {}, but the data directory is PostgreSQL {}: a major version "
                  "cannot be downgraded, so the instances keep running {}",
                  spec_.image_name, spec_.major_version, status_.data_major, status_.data_image));
      return false;
    }
    if (status_.current_primary.empty()) {
      // Never started: there is no data to upgrade yet.
      status_.data_image = spec_.image_name;
      status_.data_major = spec_.major_version;
      return false;
    }
    if (status_.target_primary != status_.current_primary) return false;  // finish the switchover first
    status_.major_upgrade = MajorUpgradeStatus{
        status_.data_image,  spec_.image_name,        status_.data_major,
        spec_.major_version, status_.current_primary, major_upgrade_job(spec_.name, spec_.major_version),
        "StoppingInstances"};
  }
  MajorUpgradeStatus& upgrade = *status_.major_upgrade;
  auto job = view_.jobs.find(upgrade.job);
  bool succeeded = job != view_.jobs.end() && job_state(*job->second) == JobState::succeeded;
  bool started = job != view_.jobs.end() && job_state(*job->second) == JobState::running;
  if (!succeeded && !started) {
    if (spec_.major_version ==
        upgrade.from_major) {  // back to the old version before anything changed: cancel
      status_.major_upgrade.reset();
      // The instances were stopped on purpose: wait for the primary to come back rather than fail over.
      status_.restarting_primary = status_.target_primary;
      return false;
    }
    if (spec_.image_name != upgrade.to_image && spec_.major_version > upgrade.from_major) {
      upgrade.to_image = spec_.image_name;
      upgrade.to_major = spec_.major_version;
      upgrade.job = major_upgrade_job(spec_.name, spec_.major_version);
      job = view_.jobs.find(upgrade.job);
    }
  }
  plan_.stop_all = true;
  status_.failing_since.clear();
  const Instance* primary = view_.find(upgrade.primary);
  if (primary == nullptr || !primary->volume_usable()) {
    block("MajorUpgrade", "MajorUpgradeBlocked",
          fmt::format("the volume of {}, the primary to upgrade, is gone", upgrade.primary));
    return true;
  }
  for (const auto& [serial, instance] : view_.instances) {
    if (instance.pod == nullptr) continue;
    upgrade.phase = "StoppingInstances";
    progress("MajorUpgrade", "StoppingInstances",
             fmt::format("stopping every instance to upgrade {} from PostgreSQL {} to {}", upgrade.primary,
                         upgrade.from_major, upgrade.to_major));
    requeue(std::chrono::seconds(5));
    return true;
  }
  if (job == view_.jobs.end()) {
    upgrade.phase = "Upgrading";
    plan_.jobs.push_back(build_major_upgrade_job(spec_, upgrade));
    progress("MajorUpgrade", "Upgrading",
             fmt::format("Job {} runs pg_upgrade from PostgreSQL {} to {} on the volume of {}", upgrade.job,
                         upgrade.from_major, upgrade.to_major, upgrade.primary));
    requeue(std::chrono::seconds(10));
    return true;
  }
  return upgrade_job_step();
}

bool ClusterPass::upgrade_job_step() {
  MajorUpgradeStatus& upgrade = *status_.major_upgrade;
  const Json& job = *view_.jobs.at(upgrade.job);
  switch (job_state(job)) {
    case JobState::running:
      plan_.jobs.push_back(carry_over_job(job));
      progress("MajorUpgrade", "Upgrading",
               fmt::format("Job {} runs pg_upgrade from PostgreSQL {} to {} on the volume of {}", upgrade.job,
                           upgrade.from_major, upgrade.to_major, upgrade.primary));
      requeue(std::chrono::seconds(10));
      return true;
    case JobState::failed:
      plan_.jobs.push_back(carry_over_job(job));
      upgrade.phase = "Failed";
      block("MajorUpgrade", "MajorUpgradeFailed",
            fmt::format(
                "upgrade Job {} failed ({}); the PostgreSQL {} data directory is untouched: set imageName "
                "back to {} to run it again, or delete the Job to retry",
                upgrade.job, job_failure(job), upgrade.from_major, upgrade.from_image));
      return true;
    case JobState::succeeded:
      plan_.jobs.push_back(carry_over_job(job));
      break;
  }
  status_.data_image = upgrade.to_image;
  status_.data_major = upgrade.to_major;
  std::string primary = upgrade.primary;
  int to_major = upgrade.to_major;
  status_.major_upgrade.reset();
  plan_.stop_all = false;
  // The replicas hold data of the old major: replaced by new ones cloned from the upgraded primary.
  for (const auto& [serial, instance] : view_.instances)
    if (instance.name != primary) plan_.remove.insert(serial);
  set_target(primary);
  set_current(primary);
  plan_.primary = primary;
  progress("MajorUpgrade", "UpgradeCompleted",
           fmt::format("{} is upgraded to PostgreSQL {}; starting it, then new replicas are cloned from it",
                       primary, to_major));
  requeue(std::chrono::seconds(5));
  return true;
}

void ClusterPass::keep_last_upgrade_job() {
  auto job = view_.jobs.find(major_upgrade_job(spec_.name, status_.data_major));
  if (job != view_.jobs.end() && job_state(*job->second) == JobState::succeeded)
    plan_.jobs.push_back(carry_over_job(*job->second));
}

}  // namespace opctl::kinds::cluster
