// Fields left out of the comparison: `ignoreDifferences` rules from opctl.yaml
// (by group/kind/namespace/name, with JSON pointers), as Argo CD has them.
#pragma once

#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::diff {

struct IgnoreRule {
  std::string group;           // empty: the core group; "*": any
  std::string kind;            // empty or "*": any
  std::string namespace_name;  // empty: any
  std::string name;            // empty: any
  std::vector<std::string> json_pointers;

  bool matches(const model::ObjectKey& key) const;
};

// Whether any of `rules` names the object.
bool any_rule_matches(const std::vector<IgnoreRule>& rules, const model::ObjectKey& key);

// Removes every field a matching rule names (missing fields are fine).
void remove_ignored_fields(model::Json& object, const model::ObjectKey& key,
                           const std::vector<IgnoreRule>& rules);

// For an object that exists, so that a server-side apply neither changes nor
// removes a field another actor owns (an autoscaler's replicas, a webhook's
// caBundle): each field a matching rule names is left out of `desired` when
// `manager` does not own it live (its owner keeps it), and otherwise takes
// its live value (leaving it out would make the server delete it). Argo CD
// calls this RespectIgnoreDifferences; opctl always does it, since a field
// left out of the diff that a pass still overwrites is drift nobody sees.
void keep_live_values_of_ignored_fields(model::Json& desired, const model::Json& live,
                                        const model::ObjectKey& key, const std::vector<IgnoreRule>& rules,
                                        const std::string& manager);

}  // namespace opctl::diff
