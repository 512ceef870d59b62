// What a pass with prune on would delete, as diff entries: members of the
// ApplySet inventory that are no longer desired. The same rules as the pass:
// never an object annotated opctl.io/prune: disabled, never a Namespace or CRD
// prune_guard.hpp keeps, and a refusal (InvalidInputError) when the set was
// written from another source or the prune breaks a limit of prune_limits.hpp.
#pragma once

#include <vector>

#include "apply/prune_limits.hpp"
#include "diff/object_diff.hpp"
#include "kube/api_client.hpp"
#include "model/label_selector.hpp"
#include "model/object.hpp"
#include "plan/applyset.hpp"

namespace opctl::apply {

struct PrunePreviewOptions {
  plan::ApplySetParent applyset;
  bool prune_namespaces = false;
  bool prune_crds = false;
  bool prune_data = false;
  PruneLimits limits;  // refused as the pass refuses (prune_limits.hpp)
  std::string source;  // this run's (set_source.hpp): a set recorded from another one is refused
  bool take_over = false;
  diff::CompareOptions compare;
  // -l: only members it selects (plan/selection.hpp) are counted and shown; `desired` is the whole set.
  model::LabelSelector selector;
};

// Entries with Change::pruned (before = the live object, normalised and
// masked; after = null), in deletion order. Empty when the set has no parent
// yet. Reads only: the parent, and one LIST per kind and namespace.
std::vector<diff::ObjectDiff> prune_preview(kube::ApiClient& client,
                                            const std::vector<model::Object>& desired,
                                            const PrunePreviewOptions& options);

}  // namespace opctl::apply
