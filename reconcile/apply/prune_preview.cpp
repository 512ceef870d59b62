#include "apply/prune_preview.hpp"

#include <set>

#include "apply/applyset_store.hpp"
#include "apply/namespace_contents.hpp"
#include "plan/prune_set.hpp"

namespace opctl::apply {

std::vector<diff::ObjectDiff> prune_preview(kube::ApiClient& client, const std::vector<model::Object>& desired,
                                            const PrunePreviewOptions& options) {
  ApplySetStore store(client, options.applyset, "");
  auto parent = store.read();
  if (!parent) return {};
  std::set<model::ObjectKey> desired_keys;
  for (const auto& object : desired) desired_keys.insert(object.key());
  auto inventory = plan::ApplySetInventory::from_parent(*parent);
  std::vector<diff::ObjectDiff> pruned;
  for (auto& candidate : plan::prune_candidates(store.members(inventory), desired_keys)) {
    if (candidate.kept) continue;
    if (candidate.key.kind == "Namespace" && candidate.key.group.empty() && !options.prune_namespaces &&
        !foreign_objects_in(client, candidate.key.name, options.applyset.id()).empty())
      continue;
    pruned.push_back(diff::compare_objects(candidate.key, candidate.live.value("apiVersion", ""), {}, candidate.live,
                                           nullptr, options.compare));
  }
  return pruned;
}

}  // namespace opctl::apply
