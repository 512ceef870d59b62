// Fencing as the pass sees it (opctl.io/fenced-instances). The instance
// managers do the fencing itself: a fenced instance stops PostgreSQL and
// keeps its Pod, not Ready, and reports the role "fenced". The pass only
// keeps out of the way: a fenced instance is never a failover or switchover
// candidate, a fenced replica is not waited for, and a fenced primary is
// neither failed over nor switched away from (CloudNativePG's rule: the
// Cluster has no primary until it is unfenced, and keeps its data as it was).
#include <fmt/format.h>

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {

bool ClusterPass::primary_fenced() {
  if (!fenced_.any()) return false;
  adopt_primary_if_unknown();
  record_lease_takeover();
  const std::string current = status_.current_primary;
  // A switchover to an instance fenced meanwhile is called off: the target
  // would never receive the old primary's last WAL.
  if (fenced_.fences(status_.target_primary) && !current.empty() && current != status_.target_primary &&
      !fenced_.fences(current)) {
    plan_.events.push_back({"Normal", "SwitchoverCalledOff",
                            fmt::format("{} was fenced during the switchover to it; {} stays the primary",
                                        status_.target_primary, current)});
    set_target(current);
  }
  const std::string primary = status_.target_primary;
  if (!fenced_.fences(primary)) return false;
  status_.failing_since.clear();
  plan_.primary = primary;
  plan_.phase = "Fenced";
  plan_.phase_reason = fmt::format(
      "the primary {} is fenced ({}): PostgreSQL is stopped in its Pod and nothing fails over; the Cluster "
      "has no primary until it is unfenced",
      primary, k_fenced_instances_annotation);
  return true;
}

void ClusterPass::report_settled() {
  int ready = 0;
  std::vector<std::string> fenced;
  for (const auto& [serial, instance] : view_.instances) {
    if (instance.ready()) ++ready;
    if (fenced_.fences(instance.name)) fenced.push_back(instance.name);
  }
  std::string summary = fmt::format("{} of {} instances Ready, {} is the primary", ready,
                                    view_.instances.size(), status_.current_primary);
  if (fenced.empty()) {
    progress("Healthy", "",
             fmt::format("{} instances Ready, {} is the primary", view_.instances.size(),
                         status_.current_primary));
    return;
  }
  plan_.phase = "Fenced";
  plan_.phase_reason =
      fmt::format("{} {} fenced ({}): PostgreSQL stopped, the Pod kept; {}", fmt::join(fenced, ", "),
                  fenced.size() == 1 ? "is" : "are", k_fenced_instances_annotation, summary);
}

std::string ClusterPass::fenced_message() const {
  if (!fenced_.any()) return "";
  if (fenced_.all) return "every instance is fenced";
  return fmt::format("fenced: {}", fmt::join(fenced_.names, ", "));
}

}  // namespace opctl::kinds::cluster
