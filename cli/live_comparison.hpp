// The desired set compared with the cluster: what `opctl diff` shows and what
// `opctl status` counts as drift. One function, so both always compare the
// same way (the set's labels, opctl.yaml's ignoreDifferences).
#pragma once

#include <vector>

#include "apply/diff_pass.hpp"
#include "apply/live_state.hpp"
#include "config/run_config.hpp"
#include "kube/api_client.hpp"
#include "model/object.hpp"

namespace opctl::cli {

struct LiveComparison {
  apply::LiveState live;
  apply::DiffPassOptions options;  // as compared; a prune preview compares the same way
  apply::DiffPassResult result;
};

// Labels `desired` as members of the config's ApplySet (a pass applies them
// so labelled, so the label is part of what is compared), reads their live
// state and compares each object with opctl.yaml's ignoreDifferences applied:
// a field another actor owns (an autoscaler's replicas) is not a difference.
// Live objects the fast path decides are kept trimmed (diff/trimmed_live.hpp).
LiveComparison compare_with_live(kube::ApiClient& client, std::vector<model::Object>& desired,
                                 const config::RunConfig& config, const apply::LiveStateOptions& read = {});

}  // namespace opctl::cli
