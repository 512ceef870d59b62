#include "plan/prune_set.hpp"

#include <algorithm>

#include "plan/apply_order.hpp"

namespace opctl::plan {

model::ObjectKey key_of_live(const model::Json& live) {
  auto gvk = model::GroupVersionKind::from(live.value("apiVersion", ""), live.value("kind", ""));
  const auto& metadata = live.value("metadata", model::Json::object());
  return {gvk.group, gvk.kind, metadata.value("namespace", ""), metadata.value("name", "")};
}

std::vector<PruneCandidate> prune_candidates(const std::vector<model::Json>& members,
                                             const std::set<model::ObjectKey>& desired) {
  std::vector<PruneCandidate> candidates;
  for (const auto& live : members) {
    auto key = key_of_live(live);
    if (desired.contains(key)) continue;
    PruneCandidate candidate{live, key, false, ""};
    const auto& metadata = live.value("metadata", model::Json::object());
    if (metadata.contains("deletionTimestamp")) continue;  // already going
    auto annotations = metadata.value("annotations", model::Json::object());
    if (annotations.value(k_prune_annotation, "") == "disabled") {
      candidate.kept = true;
      candidate.reason = "opctl.io/prune: disabled";
    }
    candidates.push_back(std::move(candidate));
  }
  auto rank = [](const PruneCandidate& candidate) {
    auto gvk = model::GroupVersionKind::from(candidate.live.value("apiVersion", ""), candidate.key.kind);
    return std::make_pair(wave_of_live(candidate.live), kind_rank(gvk));
  };
  std::stable_sort(candidates.begin(), candidates.end(), [&](const auto& a, const auto& b) {
    auto rank_a = rank(a), rank_b = rank(b);
    if (rank_a != rank_b) return rank_a > rank_b;
    return a.key < b.key;
  });
  return candidates;
}

}  // namespace opctl::plan
