// Instance Pods in a terminal phase (Failed: evicted by the kubelet, past
// their activeDeadlineSeconds, shut down with their node). Their containers
// never run again and nothing else replaces a bare Pod, so with one instance
// that would be an outage for good. The pass leaves such a Pod out of its
// children (Instance::has_live_pod() is false), so the runner deletes it, and
// a later pass recreates it under the same name on the same volume: the
// volume is the instance. A failed primary is a primary that is gone
// (cluster_primary.cpp): a replica takes over if one can, as for any failure.
// Each deletion is told on the Cluster's Events and in the run report.
#include <fmt/format.h>

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {

void ClusterPass::record_failed_pods() {
  for (const auto& [serial, instance] : view_.instances) {
    if (!instance.has_failed_pod()) continue;
    const model::Json& pod = *instance.pod;
    std::string role = instance.name == status_.target_primary ? "the primary" : "a replica";
    std::string why = fmt::format("its Pod failed ({})", pod_failure(pod));
    std::string then = instance.volume_usable() ? "recreated on its volume by the next pass"
                                                : "its volume is gone, so it is not recreated";
    plan_.events.push_back({"Warning", "InstancePodFailed",
                            fmt::format("Pod {} ({}) failed: {}; deleting it: {}", instance.name, role,
                                        pod_failure(pod), then)});
    model::Json doomed = pod;
    doomed["metadata"]["annotations"][k_deletion_reason_annotation] = fmt::format("{}; {}", why, then);
    plan_.deletions.push_back(std::move(doomed));
  }
}

bool ClusterPass::recreate_failed_pods() {
  std::vector<std::string> failed;
  for (const auto& [serial, instance] : view_.instances)
    if (instance.has_failed_pod())
      failed.push_back(fmt::format("{} ({})", instance.name, pod_failure(*instance.pod)));
  if (failed.empty()) return false;
  progress(
      "WaitingForInstances", "RecreatingFailedPod",
      fmt::format("deleting the failed Pod of {} to recreate it on its volume", fmt::join(failed, ", ")));
  requeue(std::chrono::seconds(5));
  return true;
}

}  // namespace opctl::kinds::cluster
