// Which API resource serves a kind, and whether it is namespaced: what RBAC
// rules are written in. Offline from the built-in table and the CRDs the set
// (and opctl's own kinds) define; the CLI falls back to the cluster's discovery.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/object.hpp"
#include "plan/kind_scopes.hpp"

namespace opctl::install {

struct ResourceRef {
  std::string api_group;
  std::string resource;  // plural, e.g. "deployments"
  bool namespaced = false;
};

// nullopt when the kind is unknown to the lookup.
using ResourceLookup = std::function<std::optional<ResourceRef>(const model::GroupVersionKind&)>;

// The plural resource name Kubernetes gives a built-in kind ("NetworkPolicy"
// -> "networkpolicies", "Ingress" -> "ingresses", "Endpoints" -> "endpoints").
std::string plural_of(const std::string& kind);

// The CustomResourceDefinition bodies among `objects`.
std::vector<model::Json> crds_in(const std::vector<model::Object>& objects);

// Built-in kinds, then the kinds `crds` (CustomResourceDefinition bodies) define.
ResourceLookup offline_lookup(const std::vector<model::Json>& crds);

// Tries each lookup in turn.
ResourceLookup first_of(std::vector<ResourceLookup> lookups);

// The scopes `lookup` knows, for plan::resolve_scopes: namespaces are
// resolved for the install as `opctl reconcile` resolves them.
plan::ServedScope scopes_of(const ResourceLookup& lookup);

}  // namespace opctl::install
