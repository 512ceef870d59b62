// Deletes the plan's prune steps batch by batch in deletion order, each with
// its live uid as precondition; a Namespace or CRD that still holds others'
// objects is kept (prune_guard.hpp), checked right before its batch.
#pragma once

#include "apply/pass_execution.hpp"
#include "plan/applyset.hpp"

namespace opctl::apply {

struct PruneExecution {
  bool all_deleted = true;
  // What stays in the inventory although it left git: kept members' kinds and namespaces.
  plan::ApplySetInventory kept;
};

PruneExecution execute_prune(PassExecution& pass);

// --dry-run: the plan's steps as outcomes (would be created / configured /
// pruned, unchanged, kept), the prune guards asked as a real pass would.
void report_plan(PassExecution& pass);

}  // namespace opctl::apply
