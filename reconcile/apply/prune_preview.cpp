#include "apply/prune_preview.hpp"

#include <set>

#include "apply/applyset_store.hpp"
#include "apply/prune_guard.hpp"
#include "apply/prune_limits.hpp"
#include "apply/set_source.hpp"
#include "plan/pass_plan.hpp"
#include "plan/prune_set.hpp"
#include "plan/selection.hpp"

namespace opctl::apply {

std::vector<diff::ObjectDiff> prune_preview(kube::ApiClient& client,
                                            const std::vector<model::Object>& desired,
                                            const PrunePreviewOptions& options) {
  ApplySetStore store(client, options.applyset, "");
  auto parent = store.read();
  if (!parent) return {};
  std::set<model::ObjectKey> desired_keys;
  for (const auto& object : desired)
    desired_keys.insert(object.key());
  auto inventory = plan::ApplySetInventory::from_parent(*parent);
  // What it would delete is shown whole; the rest only needs its identity.
  auto members = store.members(inventory, [&desired_keys](const model::Json& live) {
    return !desired_keys.contains(plan::key_of_live(live));
  });
  members = plan::selected_members(std::move(members), desired, options.selector);
  std::size_t selected =
      options.selector.empty() ? desired.size() : plan::selected_objects(desired, options.selector).size();
  auto steps = plan::prune_steps(members, desired_keys);
  const auto& applyset = options.applyset;
  std::vector<std::string> would_delete = plan::pruned_names(steps);
  std::string set = applyset.qualified_name();
  decide_set_source(parent, {set, options.source, true, options.take_over, [&] { return would_delete; }});
  check_prune_volume({set, selected, members.size(), would_delete}, options.limits);
  PruneGuardOptions guard{applyset.id(), options.prune_namespaces, options.prune_crds, options.prune_data};
  std::vector<diff::ObjectDiff> pruned;
  for (auto& step : steps) {
    if (step.action != plan::StepAction::prune) continue;
    if (!prune_refusal(client, {step.live, step.key, false, ""}, guard).empty()) continue;
    pruned.push_back(
        diff::compare_objects(step.key, step.api_version, {}, step.live, nullptr, options.compare));
  }
  return pruned;
}

}  // namespace opctl::apply
