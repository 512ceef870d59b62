// Which members of the inventory a pass deletes: those no longer desired,
// except objects annotated opctl.io/prune: disabled. Namespaces are decided
// by the caller (it must look inside them). Deletion runs in reverse apply
// order: custom resources and workloads before Services, config, RBAC, CRDs
// and Namespaces.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::plan {

inline constexpr const char* k_prune_annotation = "opctl.io/prune";

struct PruneCandidate {
  model::Json live;
  model::ObjectKey key;
  bool kept = false;   // annotated prune: disabled
  std::string reason;  // why it is kept
};

// `members` are live objects labelled part of the set; `desired` the keys of
// this pass. Returns candidates in deletion order.
std::vector<PruneCandidate> prune_candidates(const std::vector<model::Json>& members,
                                             const std::set<model::ObjectKey>& desired);

model::ObjectKey key_of_live(const model::Json& live);

}  // namespace opctl::plan
