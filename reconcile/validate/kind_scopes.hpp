// Whether a kind is namespaced when no cluster can be asked: a table of the
// built-in kinds and the scopes the set's own CustomResourceDefinitions declare.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/object.hpp"

namespace opctl::validate {

// A kind's scope does not change between versions, so it is keyed by group and kind.
using GroupKind = std::pair<std::string, std::string>;

// The scope of a built-in kind (Kubernetes 1.30 to 1.36, beta and alpha APIs
// included); nullopt for kinds the table does not know.
std::optional<bool> builtin_namespaced(const GroupKind& kind);

// The kind a CustomResourceDefinition body defines, with its scope
// (spec.scope == "Namespaced"); nullopt when it names no kind.
std::optional<std::pair<GroupKind, bool>> crd_scope(const model::Json& crd);

// The kinds the CustomResourceDefinitions in `objects` define, with their scopes.
std::map<GroupKind, bool> crd_scopes(const std::vector<model::Object>& objects);

}  // namespace opctl::validate
