// Who the primary is, and moving it: failover when the primary is gone or
// not Ready for longer than failoverDelay (the election in failover.cpp),
// switchover (the old primary stops first, then the new one is labelled, so
// two never accept writes at once), and restarting the primary in place.
//
// status.targetPrimary is the instance that should be primary; the Pod
// labelled role=primary (what -rw selects) is the target, except while a
// switchover waits for the old primary to stop. status.currentPrimary is the
// target once it has been seen Ready in that role.
#include <fmt/format.h>

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {
namespace {

std::string describe_unhealthy(const Instance* instance) {
  if (instance == nullptr || instance->pod == nullptr) return "gone";
  // A failed Pod is gone too: the pass deletes it and recreates it on its volume (failed_pods.cpp).
  if (instance->has_failed_pod()) return fmt::format("failed ({})", pod_failure(*instance->pod));
  if (!instance->has_live_pod()) return "being deleted";
  return "not Ready";
}

}  // namespace

void ClusterPass::set_target(const std::string& instance) {
  if (status_.target_primary == instance) return;
  status_.target_primary = instance;
  status_.target_primary_timestamp = format_time(now_);
}

void ClusterPass::set_current(const std::string& instance) {
  if (status_.current_primary == instance) return;
  status_.current_primary = instance;
  status_.current_primary_timestamp = format_time(now_);
}

void ClusterPass::adopt_primary_if_unknown() {
  if (!status_.target_primary.empty() || view_.instances.empty()) return;
  // Status was lost: trust the role label, else the oldest instance with a volume.
  for (const auto& [serial, instance] : view_.instances)
    if (instance.has_live_pod() && label_of(*instance.pod, k_role_label) == k_role_primary) {
      set_target(instance.name);
      return;
    }
  for (const auto& [serial, instance] : view_.instances)
    if (instance.volume_usable()) {
      set_target(instance.name);
      return;
    }
}

bool ClusterPass::manage_primary() {
  adopt_primary_if_unknown();
  if (!status_.current_primary.empty() && status_.target_primary != status_.current_primary) {
    continue_switchover();
    return false;
  }
  if (!status_.restarting_primary.empty() && continue_restart()) return false;

  const std::string target = status_.target_primary;
  plan_.primary = target;
  const Instance* primary = view_.find(target);
  std::optional<TimePoint> crashed = crashed_while_primary(primary);
  // A crashed primary that is back, with no replica to take over, keeps serving.
  if (crashed && primary->ready() && !elect_primary(replica_reports(target)).winner) crashed.reset();
  if (primary != nullptr && primary->ready() && !crashed) {
    set_current(target);
    status_.failing_since.clear();
    return true;
  }
  if (status_.current_primary.empty()) {
    progress("SettingUpPrimary", "WaitingForPrimary", fmt::format("waiting for {} to become Ready", target));
    requeue(std::chrono::seconds(10));
    return false;
  }
  if (primary_shutting_down(primary)) {
    // Its manager is shutting it down cleanly (smart, then fast), which sends
    // every WAL record to the streaming replicas: promoting one only after
    // that loses nothing, even without synchronous replication.
    progress(
        "FailingOver", "PrimaryShuttingDown",
        fmt::format("the primary {} is being deleted; waiting for its clean shutdown before failing over",
                    target));
    requeue(std::chrono::seconds(2));
    return false;
  }
  if (!crashed && promotion_under_way(primary)) {
    progress("WaitingForPrimary", "Promoting",
             fmt::format("waiting for {} to finish its promotion and accept writes", target));
    requeue(std::chrono::seconds(2));
    return false;
  }
  auto replicas = replica_reports(target);
  std::string state =
      crashed ? "crashed (PostgreSQL exited; its container restarted)" : describe_unhealthy(primary);
  if (replicas.empty()) {
    status_.failing_since.clear();
    if (primary != nullptr && primary->has_failed_pod()) {
      progress("WaitingForPrimary", "RecreatingFailedPod",
               fmt::format("the primary {} is {}; deleting its Pod to recreate it on its volume (there is no "
                           "replica to fail over to)",
                           target, state));
      requeue(std::chrono::seconds(5));
      return false;
    }
    progress("WaitingForPrimary", "PrimaryNotReady",
             fmt::format("the primary {} is {} and there is no replica to fail over to", target, state));
    requeue(std::chrono::seconds(10));
    return false;
  }
  if (status_.failing_since.empty()) status_.failing_since = format_time(crashed.value_or(now_));
  TimePoint since = parse_time(status_.failing_since).value_or(now_);
  auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(now_ - since);
  if (elapsed < spec_.failover_delay) {
    auto remaining = spec_.failover_delay - elapsed;
    progress("FailingOver", "WaitingForFailoverDelay",
             fmt::format("the primary {} is {} since {}; failing over in {}s unless it recovers", target,
                         state, status_.failing_since, remaining.count()));
    requeue(remaining);
    return false;
  }
  Election election = elect_primary(replicas);
  if (!election.winner) {
    block("FailingOver", election.reason,
          fmt::format("the primary {} is {} since {}, and no replica is promoted: {}", target, state,
                      status_.failing_since, election.message));
    requeue(std::chrono::seconds(10));
    return false;
  }
  fail_over(*election.winner, fmt::format("the primary {} was {} since {}; {}", target, state,
                                          status_.failing_since, election.message));
  return false;
}

std::optional<TimePoint> ClusterPass::crashed_while_primary(const Instance* primary) const {
  // With failoverDelay 0 a primary whose PostgreSQL died is failed over from
  // even when the kubelet has already restarted its container: whether a pass
  // saw it not Ready in between must not decide. A later delay lets a primary
  // that comes back in time keep its role, as for any other failure.
  if (spec_.failover_delay.count() > 0 || primary == nullptr || !primary->has_live_pod()) return std::nullopt;
  if (replica_reports(primary->name).empty()) return std::nullopt;
  auto crash = postgres_crashed_at(*primary->pod);
  auto named = parse_time(status_.current_primary_timestamp);
  if (!crash || !named || *crash < *named || now_ - *crash > k_crash_memory) return std::nullopt;
  return crash;
}

bool ClusterPass::primary_shutting_down(const Instance* primary) const {
  if (primary == nullptr || primary->pod == nullptr || primary->has_live_pod()) return false;
  // A Pod stuck terminating (its node gone) is waited for only so long.
  auto deleted = parse_time(primary->pod->value("/metadata/deletionTimestamp"_json_pointer, ""));
  return deleted && now_ - *deleted < k_primary_shutdown_wait && postgres_running(*primary->pod);
}

bool ClusterPass::promotion_under_way(const Instance* primary) const {
  // A replica just named primary is not Ready until its manager has promoted
  // it and the kubelet's next probe has seen it serve: that is not a failure
  // to fail over from again, for a while. A primary whose manager reports it
  // stopped (PostgreSQL down) is failing, whenever it was named.
  if (primary == nullptr || !primary->has_live_pod() || !postgres_running(*primary->pod)) return false;
  std::string role = annotation_of(*primary->pod, k_instance_role_annotation);
  if (role != k_role_replica && role != k_role_primary) return false;
  auto since = parse_time(status_.current_primary_timestamp);
  return since && now_ - *since < k_promotion_grace;
}

void ClusterPass::fail_over(const std::string& winner, const std::string& why) {
  std::string old = status_.target_primary;
  set_target(winner);
  set_current(winner);
  status_.failing_since.clear();
  status_.restarting_primary.clear();
  plan_.primary = winner;
  // The old primary, if its Pod still exists, is stopped: it comes back as a replica of the new one.
  if (const Instance* previous = view_.find(old); previous != nullptr && previous->has_live_pod())
    plan_.stop.insert(previous->serial);
  progress("FailingOver", "FailedOver", fmt::format("failed over from {} to {}: {}", old, winner, why));
  requeue(std::chrono::seconds(5));
}

void ClusterPass::start_switchover(const std::string& to, const std::string& why) {
  std::string from = status_.current_primary;
  set_target(to);
  plan_.primary.clear();
  if (const Instance* old = view_.find(from); old != nullptr && old->has_live_pod())
    plan_.stop.insert(old->serial);
  progress("Switchover", "SwitchingOver",
           fmt::format("switching over from {} to {} ({}): stopping {} first", from, to, why, from));
  requeue(std::chrono::seconds(5));
}

void ClusterPass::continue_switchover() {
  const std::string from = status_.current_primary;
  const std::string to = status_.target_primary;
  plan_.primary.clear();
  if (const Instance* old = view_.find(from); old != nullptr && old->pod != nullptr) {
    if (old->has_live_pod()) plan_.stop.insert(old->serial);
    progress("Switchover", "StoppingPrimary",
             fmt::format("switching over from {} to {}: waiting for {} to stop", from, to, from));
    requeue(std::chrono::seconds(5));
    return;
  }
  const Instance* next = view_.find(to);
  std::string promoted = to;
  std::string note;
  if (next == nullptr || !next->promotable()) {
    Election election = elect_primary(replica_reports(from));
    if (!election.winner) {
      block("Switchover", election.reason,
            fmt::format(
                "switching over from {}: {} is not Ready any more, and no other replica is promoted: {}",
                from, to, election.message));
      requeue(std::chrono::seconds(10));
      return;
    }
    promoted = *election.winner;
    note = fmt::format(" ({} was not Ready any more; {})", to, election.message);
    set_target(promoted);
  }
  set_current(promoted);
  plan_.primary = promoted;
  progress("Switchover", "SwitchedOver",
           fmt::format("{} is the primary{}; {} rejoins as a replica", promoted, note, from));
  requeue(std::chrono::seconds(5));
}

void ClusterPass::restart_primary(const std::string& why) {
  const Instance* primary = view_.find(status_.target_primary);
  status_.restarting_primary = status_.target_primary;
  plan_.primary = status_.target_primary;
  if (primary != nullptr && primary->has_live_pod()) plan_.stop.insert(primary->serial);
  progress(
      "RestartingPrimary", "RestartingPrimary",
      fmt::format("restarting the primary {} in place with the new spec ({})", status_.target_primary, why));
  requeue(std::chrono::seconds(5));
}

bool ClusterPass::continue_restart() {
  const std::string name = status_.restarting_primary;
  const Instance* primary = view_.find(name);
  if (primary == nullptr || name != status_.target_primary) {
    status_.restarting_primary.clear();
    return false;
  }
  plan_.primary = name;
  if (primary->has_live_pod() && primary->pod_spec_hash() != desired_template().hash) {
    plan_.stop.insert(primary->serial);
  } else if (primary->ready()) {
    status_.restarting_primary.clear();
    status_.failing_since.clear();
    return false;
  }
  // A planned restart is not a failure: no failover while the primary comes back.
  progress("RestartingPrimary", "RestartingPrimary",
           fmt::format("waiting for the primary {} to come back with the new spec", name));
  requeue(std::chrono::seconds(5));
  return true;
}

}  // namespace opctl::kinds::cluster
