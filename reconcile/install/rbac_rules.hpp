// Least-privilege RBAC from the desired set: exactly what one `opctl
// reconcile` pass of this set (and the custom kinds' reconcilers) asks the
// API server to do, per namespace and cluster-wide.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "install/policy_rules.hpp"
#include "install/resource_lookup.hpp"
#include "kinds/kind_registry.hpp"
#include "model/object.hpp"

namespace opctl::install {

struct RbacInputs {
  ResourceLookup lookup;
  const kinds::KindRegistry* registry = nullptr;  // the custom kinds; nullptr: none
  std::string config_name = "default";            // names the Lease and the ApplySet parent: opctl-<name>
  std::string config_namespace = "default";       // where both live
  bool lease = true;                              // opctl.yaml lease.enabled
};

struct RbacRules {
  std::map<std::string, PolicyRules> namespaced;  // namespace -> its Role's rules
  PolicyRules cluster;                            // the ClusterRole's rules
};

// `desired` must have its namespaces resolved (plan::resolve_scopes). Throws
// InvalidInputError when a kind (or a custom kind's child kind) is unknown.
RbacRules compute_rbac(const std::vector<model::Object>& desired, const RbacInputs& inputs);

// The verbs opctl uses on what it manages: read (live state, health), create
// and server-side apply (PATCH), delete (prune, children no longer wanted).
// No `update`: opctl never PUTs an object it manages (only its Lease). No
// `watch`: a pass reads by LIST and polls its health waits.
inline const Verbs k_manage_verbs = {"get", "list", "create", "patch", "delete"};

}  // namespace opctl::install
