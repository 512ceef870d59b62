// What opctl.yaml decides about the set, in the types the layers below take:
// each conversion is written once here, so the commands that read the same
// set (reconcile, diff, status) cannot disagree about it.
#pragma once

#include <vector>

#include "config/run_config.hpp"
#include "diff/ignore_rules.hpp"
#include "plan/applyset.hpp"

namespace opctl::cli {

// The set's ApplySet parent Secret (its Lease has the same name and namespace).
plan::ApplySetParent applyset_parent_of(const config::RunConfig& config);

// opctl.yaml's ignoreDifferences, as the diff and the pass apply them.
std::vector<diff::IgnoreRule> ignore_rules_of(const config::RunConfig& config);

}  // namespace opctl::cli
