#include "config_values.hpp"

namespace opctl::cli {

plan::ApplySetParent applyset_parent_of(const config::RunConfig& config) {
  return {config::set_object_name(config.name), config.namespace_name};
}

std::vector<diff::IgnoreRule> ignore_rules_of(const config::RunConfig& config) {
  std::vector<diff::IgnoreRule> rules;
  for (const auto& rule : config.ignore_differences)
    rules.push_back({rule.group, rule.kind, rule.namespace_name, rule.name, rule.json_pointers});
  return rules;
}

}  // namespace opctl::cli
