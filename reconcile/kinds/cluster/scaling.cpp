// Scaling, one instance per pass. Down: the replica with the highest serial
// goes first, never the primary; its volume is deleted unless
// storage.retainOnScaleDown. Up: once every instance is Ready, a replica with
// a new serial (serials are never reused), cloned from the primary by its
// sidecar.
//
// CloudNativePG skips replicas that are not Ready when it picks one to remove;
// here the highest serial goes even when not Ready: it is the newest and least
// useful, and keeping it would remove a healthy replica instead.
#include <fmt/format.h>

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {

bool ClusterPass::scale_down() {
  auto members = static_cast<int>(view_.instances.size());
  if (members <= spec_.instances) return false;
  for (auto it = view_.instances.rbegin(); it != view_.instances.rend(); ++it) {
    const Instance& victim = it->second;
    if (victim.name == status_.target_primary || victim.name == status_.current_primary) continue;
    bool retain = spec_.storage.retain_on_scale_down && victim.volume_usable();
    (retain ? plan_.detach : plan_.remove).insert(victim.serial);
    progress("ScalingDown", "ScalingDown",
             fmt::format("removing {} ({} instances, {} wanted){}", victim.name, members, spec_.instances,
                         retain ? "; its volume is kept, annotated opctl.io/detached" : ""));
    requeue(std::chrono::seconds(5));
    return true;
  }
  return false;
}

bool ClusterPass::wait_for_instances() {
  std::vector<std::string> waiting;
  PodTemplate pod_template = desired_template();
  bool rolling = false;
  for (const auto& [serial, instance] : view_.instances) {
    // A fenced instance is not Ready on purpose.
    if (!instance.ready() && !fenced_.fences(instance.name)) waiting.push_back(instance.name);
    if (instance.has_live_pod() && instance.pod_spec_hash() != pod_template.hash) rolling = true;
  }
  if (waiting.empty()) return false;
  progress(rolling ? "RollingUpdate" : "WaitingForInstances", "WaitingForInstances",
           fmt::format("waiting for {} to be Ready", fmt::join(waiting, ", ")));
  requeue(std::chrono::seconds(10));
  return true;
}

bool ClusterPass::scale_up() {
  auto members = static_cast<int>(view_.instances.size());
  if (members >= spec_.instances) return false;
  int serial = ++status_.latest_generated_node;
  std::string name = instance_name(spec_.name, serial);
  plan_.new_instance = serial;
  progress("CreatingReplica", "ScalingUp",
           fmt::format("creating {} as a replica of {} ({} of {} instances)", name, status_.current_primary,
                       members + 1, spec_.instances));
  requeue(std::chrono::seconds(10));
  return true;
}

}  // namespace opctl::kinds::cluster
