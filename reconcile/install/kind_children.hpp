// What a custom kind's reconciler would create for a resource as written in
// the manifests: asked once, offline, so the RBAC can cover the Roles and
// RoleBindings among its children (which need more than verbs on a resource).
#pragma once

#include <vector>

#include "kinds/kind_reconciler.hpp"
#include "model/object.hpp"

namespace opctl::install {

// The children `reconciler` wants for `resource` before anything exists: the
// first pass's. Empty when it cannot tell (its spec is invalid).
std::vector<model::Json> first_children(kinds::KindReconciler& reconciler, const model::Object& resource);

}  // namespace opctl::install
