// Who the primary is, as the pass sees it. The instance managers decide who
// runs writable, through the primary Lease (reconcile/instance/leadership.hpp):
// they fail over when the primary's Lease expires and hand it over on a
// switchover, whether or not a pass runs. The pass declares what it wants
// (status.targetPrimary: a switchover, a rolling update of the primary, a
// primary that holds its Lease but cannot serve) and records what the
// instances did (status.currentPrimary, an Event when they failed over).
//
// status.targetPrimary is the instance that should be primary; the Pod
// labelled role=primary (what -rw selects) is the Lease's holder, labelled by
// its own manager. status.currentPrimary is the holder once it has been seen
// Ready in that role.
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

// How long a primary that holds its Lease may stay not Ready (a readiness
// probe that flaps, a promotion under way) before the pass asks for a
// switchover away from it, at the least.
inline constexpr std::chrono::seconds k_unready_primary_grace{30};

void ClusterPass::record_lease_takeover() {
  const std::string holder = view_.lease_holder();
  const Instance* holding = view_.find(holder);
  if (holding == nullptr || holder == status_.target_primary) return;
  // A switchover still waiting for the old primary to hand over is not a takeover.
  bool switching = !status_.current_primary.empty() && status_.target_primary != status_.current_primary;
  if (switching && holder == status_.current_primary) return;
  std::string old = status_.current_primary.empty() ? status_.target_primary : status_.current_primary;
  set_target(holder);
  status_.failing_since.clear();
  status_.restarting_primary.clear();
  plan_.events.push_back(
      {"Normal", "FailedOver",
       fmt::format("{} took the primary Lease from {}: the instances failed over (no pass needed)", holder,
                   old)});
}

bool ClusterPass::manage_primary() {
  adopt_primary_if_unknown();
  record_lease_takeover();
  const std::string holder = view_.lease_holder();
  if (!status_.current_primary.empty() && status_.target_primary != status_.current_primary) {
    continue_switchover();
    return false;
  }
  if (!status_.restarting_primary.empty() && continue_restart()) return false;

  const std::string target = status_.target_primary;
  plan_.primary = target;
  const Instance* primary = view_.find(target);
  if (primary != nullptr && primary->ready() && holder == target) {
    set_current(target);
    status_.failing_since.clear();
    return true;
  }
  if (status_.current_primary.empty()) {
    progress("SettingUpPrimary", "WaitingForPrimary", fmt::format("waiting for {} to become Ready", target));
    requeue(std::chrono::seconds(10));
    return false;
  }
  std::string state = describe_unhealthy(primary);
  bool holds_and_runs =
      holder == target && primary != nullptr && primary->has_live_pod() && postgres_running(*primary->pod);
  if (!holds_and_runs) {
    // Its manager is gone, stopped, or cut off: its Lease expires, and the
    // instances elect among themselves. Nothing here would be faster or safer.
    status_.failing_since.clear();
    if (replica_reports(target).empty()) {
      if (primary != nullptr && primary->has_failed_pod())
        progress(
            "WaitingForPrimary", "RecreatingFailedPod",
            fmt::format("the primary {} is {}; deleting its Pod to recreate it on its volume (there is no "
                        "replica to fail over to)",
                        target, state));
      else
        progress("WaitingForPrimary", "PrimaryNotReady",
                 fmt::format("the primary {} is {} and there is no replica to fail over to", target, state));
      requeue(std::chrono::seconds(5));
      return false;
    }
    progress(
        "FailingOver", "WaitingForLease",
        holder.empty()
            ? fmt::format("the primary {} is {}; the primary Lease is free, a replica takes it", target,
                          state)
            : fmt::format("the primary {} is {}; a replica takes over when the primary Lease of {} expires",
                          target, state, holder));
    requeue(std::chrono::seconds(5));
    return false;
  }
  // It holds its Lease and runs, but does not serve: a switchover, if a replica can take over.
  if (status_.failing_since.empty()) status_.failing_since = format_time(now_);
  TimePoint since = parse_time(status_.failing_since).value_or(now_);
  auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(now_ - since);
  auto wait = std::max(spec_.failover_delay, k_unready_primary_grace);
  if (elapsed < wait) {
    progress("FailingOver", "WaitingForFailoverDelay",
             fmt::format("the primary {} is {} since {}; switching over in {}s unless it recovers", target,
                         state, status_.failing_since, (wait - elapsed).count()));
    requeue(wait - elapsed);
    return false;
  }
  auto replicas = replica_reports(target);
  Election election = elect_primary(replicas);
  if (!election.winner) {
    block("FailingOver", replicas.empty() ? "PrimaryNotReady" : election.reason,
          fmt::format("the primary {} is {} since {}, and no replica can take over: {}", target, state,
                      status_.failing_since, replicas.empty() ? "there is no replica" : election.message));
    requeue(std::chrono::seconds(10));
    return false;
  }
  start_switchover(*election.winner, fmt::format("the primary {} was {} since {}; {}", target, state,
                                                 status_.failing_since, election.message));
  return false;
}

void ClusterPass::start_switchover(const std::string& to, const std::string& why) {
  std::string from = status_.current_primary;
  set_target(to);
  status_.failing_since.clear();
  plan_.primary = from;
  progress("Switchover", "SwitchingOver",
           fmt::format(
               "switching over from {} to {} ({}): {} hands the primary Lease over once {} has its last WAL",
               from, to, why, from, to));
  requeue(std::chrono::seconds(2));
}

void ClusterPass::continue_switchover() {
  const std::string from = status_.current_primary;
  const std::string to = status_.target_primary;
  const std::string holder = view_.lease_holder();
  plan_.primary = holder.empty() ? from : holder;
  const Instance* next = view_.find(to);
  if (holder == to) {
    if (next != nullptr && next->ready()) {
      set_current(to);
      progress("Switchover", "SwitchedOver",
               fmt::format("{} is the primary; {} rejoins as a replica", to, from));
      requeue(std::chrono::seconds(5));
      return;
    }
    progress("Switchover", "Promoting",
             fmt::format("switching over from {}: {} holds the primary Lease and promotes", from, to));
    requeue(std::chrono::seconds(2));
    return;
  }
  if (next == nullptr || !next->ready()) {
    // The target went away meanwhile: another replica, or the switchover is off.
    Election election = elect_primary(replica_reports(from));
    if (election.winner && *election.winner != to) {
      set_target(*election.winner);
      progress("Switchover", "SwitchingOver",
               fmt::format("switching over from {} to {} instead ({} is not Ready any more; {})", from,
                           *election.winner, to, election.message));
      requeue(std::chrono::seconds(2));
      return;
    }
  }
  std::string waiting;
  if (const Instance* old = view_.find(from); old != nullptr && old->pod != nullptr)
    if (std::string error = annotation_of(*old->pod, k_instance_error_annotation); !error.empty())
      waiting = " (" + error + ")";
  progress("Switchover", "HandingOver",
           fmt::format("switching over from {} to {}: waiting for {} to hand over the primary Lease{}", from,
                       to, holder.empty() ? "the instances" : holder, waiting));
  requeue(std::chrono::seconds(2));
}

void ClusterPass::restart_primary(const std::string& why) {
  const Instance* primary = view_.find(status_.target_primary);
  status_.restarting_primary = status_.target_primary;
  plan_.primary = status_.target_primary;
  if (primary != nullptr && primary->has_live_pod()) plan_.stop.insert(primary->serial);
  progress("RestartingPrimary", "RestartingPrimary",
           fmt::format("restarting the primary {} in place ({})", status_.target_primary, why));
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
