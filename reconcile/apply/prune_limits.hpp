// The guards on how much one pass may prune, checked before it changes
// anything: a source that yields no objects for a set that has members (a bad
// merge, a moved folder, a kustomization that renders nothing) prunes nothing
// unless told the set is meant to be empty (--allow-empty), and a pass that
// would delete more than --max-prune of the set's members prunes nothing
// unless the limit is raised. The same rules in reconcile, its --dry-run and
// diff --prune.
#pragma once

#include <string>
#include <vector>

#include "model/prune_limit.hpp"

namespace opctl::apply {

struct PruneLimits {
  bool allow_empty = false;     // --allow-empty, allowEmpty in opctl.yaml
  model::PruneLimit max_prune;  // --max-prune, maxPrune in opctl.yaml
};

struct PruneVolume {
  std::string set;                        // "namespace/opctl-name", for messages
  std::size_t desired = 0;                // objects this run's source yields
  std::size_t members = 0;                // live members of the set before the pass
  std::vector<std::string> would_delete;  // "Kind namespace/name"
};

// Throws InvalidInputError (field --prune, nothing changed yet) naming the
// set, its member count, what would be deleted and the flag that allows it.
void check_prune_volume(const PruneVolume& volume, const PruneLimits& limits);

}  // namespace opctl::apply
