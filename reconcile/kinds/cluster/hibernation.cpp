// Hibernation (opctl.io/hibernation: "on"): every instance Pod goes, the
// volumes, Secrets and Services stay. The replicas stop first, then the
// primary, each with the clean shutdown its manager does on SIGTERM (smart,
// then fast): the primary's last commits are on its own volume, and it is the
// one that comes back first on "off", on the same volume, before the replicas
// are started again to follow it. So no acknowledged write can be lost, and
// the Cluster wakes with the primary it had.
//
// CloudNativePG stops the primary first and then the replicas, so that they
// receive its shutdown checkpoint; here the instance managers elect a new
// primary on their own when the Lease is freed, so the primary goes last
// (the managers also refuse the Lease while the annotation is "on").
#include <fmt/format.h>

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {

void ClusterPass::read_stop_annotations() {
  // A value that cannot be read never gets here: check_cluster() refuses it
  // (the Cluster is Invalid and the pass changes nothing until it is fixed).
  hibernation_ = parse_hibernation(annotation_text(observed_.parent, k_hibernation_annotation)).value;
  fenced_ = parse_fenced_instances(annotation_text(observed_.parent, k_fenced_instances_annotation)).value;
}

bool ClusterPass::hibernate() {
  if (!hibernation_) return false;
  adopt_primary_if_unknown();
  record_lease_takeover();
  // The instance that runs writable goes last and comes back first; a
  // switchover or a restart under way is called off.
  std::string primary = view_.lease_holder();
  if (view_.find(primary) == nullptr) primary = status_.target_primary;
  set_target(primary);
  if (!status_.current_primary.empty()) set_current(primary);
  status_.restarting_primary.clear();
  status_.failing_since.clear();
  status_.hibernated = true;
  plan_.primary = primary;

  std::vector<std::string> replicas;
  const Instance* first = nullptr;
  for (const auto& [serial, instance] : view_.instances) {
    if (instance.name == primary) {
      first = &instance;
      continue;
    }
    plan_.stop.insert(serial);
    if (instance.pod != nullptr) replicas.push_back(instance.name);
  }
  if (!replicas.empty()) {
    progress("Hibernating", "StoppingReplicas",
             fmt::format("hibernating: stopping the replicas {} (clean shutdown); the primary {} stops last",
                         fmt::join(replicas, ", "), primary));
    requeue(std::chrono::seconds(2));
    return true;
  }
  if (first != nullptr) plan_.stop.insert(first->serial);
  if (first != nullptr && first->pod != nullptr) {
    progress("Hibernating", "StoppingPrimary",
             fmt::format("hibernating: stopping the primary {} (clean shutdown: smart, then fast)", primary));
    requeue(std::chrono::seconds(2));
    return true;
  }
  plan_.phase = "Hibernated";
  plan_.phase_reason = fmt::format(
      "every Pod is stopped; the volumes, Secrets and Services stay. Set {}: \"off\" (or remove it) to "
      "start the instances again on their volumes, {} first",
      k_hibernation_annotation, primary);
  return true;
}

bool ClusterPass::wake_up() {
  if (!status_.hibernated) return false;
  const std::string primary = status_.target_primary;
  const Instance* first = view_.find(primary);
  bool serving = first != nullptr && first->ready() && view_.lease_holder() == primary;
  if (serving || first == nullptr || !first->volume_usable()) {
    // Awake (or there is no volume to wait for: the usual steps decide).
    status_.hibernated = false;
    return false;
  }
  // A replica started now could find the Lease free and the primary not yet
  // up, and take it without the primary's last commits.
  plan_.primary = primary;
  for (const auto& [serial, instance] : view_.instances)
    if (instance.name != primary && instance.pod == nullptr) plan_.hold.insert(serial);
  progress("WakingUp", "StartingPrimary",
           fmt::format("waking from hibernation: starting the primary {} on its volume; the replicas start "
                       "once it serves",
                       primary));
  requeue(std::chrono::seconds(5));
  return true;
}

}  // namespace opctl::kinds::cluster
