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

// Removes every field a matching rule names (missing fields are fine).
void remove_ignored_fields(model::Json& object, const model::ObjectKey& key, const std::vector<IgnoreRule>& rules);

}  // namespace opctl::diff
