// A kind named without its version: a kind's scope, its ApplySet inventory
// entry and the references between objects do not change between versions.
#pragma once

#include <compare>
#include <string>

namespace opctl::plan {

struct GroupKind {
  std::string group;  // empty: the core group
  std::string kind;
  // "Deployment.apps", "Namespace"
  std::string to_string() const { return group.empty() ? kind : kind + "." + group; }
  static GroupKind parse(const std::string& text);
  auto operator<=>(const GroupKind&) const = default;
};

}  // namespace opctl::plan
