#include "live_comparison.hpp"

#include "config_values.hpp"

namespace opctl::cli {

LiveComparison compare_with_live(kube::ApiClient& client, std::vector<model::Object>& desired,
                                 const config::RunConfig& config, const apply::LiveStateOptions& read) {
  plan::label_members(desired, applyset_parent_of(config));
  LiveComparison comparison;
  comparison.options.compare.ignore_rules = ignore_rules_of(config);
  auto settling = apply::live_state_for_diff(comparison.options, read);
  // What is left of an unchanged object once it settles: its key, labels and annotations (the diff, the
  // prune preview and `opctl status` read no more of it).
  settling.on_settled = [&desired](std::size_t index) { plan::keep_settled_identity(desired[index]); };
  comparison.live = apply::read_live_state(client, desired, settling);
  comparison.result = apply::diff_against_live(client, desired, comparison.live, comparison.options);
  return comparison;
}

}  // namespace opctl::cli
