// Whether a kind is namespaced, and where that is known from: the cluster,
// a table of the built-in kinds, or the CustomResourceDefinitions of the set
// itself (whose kinds the cluster cannot serve before the pass creates them).
// apply, validate and install all decide scopes, and say "unknown kind", here.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/object.hpp"
#include "plan/group_kind.hpp"

namespace opctl::plan {

inline constexpr const char* k_crd_group = "apiextensions.k8s.io";
inline constexpr const char* k_crd_kind = "CustomResourceDefinition";

// True for a CustomResourceDefinition (of any version of apiextensions).
bool is_crd(const model::GroupVersionKind& gvk);

// The scope of a built-in kind (Kubernetes 1.30 to 1.36, beta and alpha APIs
// included); nullopt for kinds the table does not know.
std::optional<bool> builtin_namespaced(const GroupKind& kind);

// What a CustomResourceDefinition says of the kind it defines.
struct CrdKind {
  GroupKind kind;
  bool namespaced = false;            // spec.scope == "Namespaced"
  std::vector<std::string> versions;  // spec.versions[].name, served ones only

  // True for this kind at one of the CRD's versions.
  bool defines(const model::GroupVersionKind& gvk) const;
};

// The kind a CustomResourceDefinition body defines; nullopt when it names
// none. Any shape is read without throwing (validation reports bad ones).
std::optional<CrdKind> crd_kind(const model::Json& crd);

// The kinds the CustomResourceDefinitions among `objects` define.
std::map<GroupKind, CrdKind> crd_kinds(const std::vector<model::Object>& objects);

// The one message for a kind that neither the cluster nor a CRD of the set
// provides.
std::string unknown_kind_message(const model::GroupVersionKind& gvk);

// Whether the cluster (or what stands for it) serves a kind namespaced;
// nullopt when it does not serve it.
using ServedScope = std::function<std::optional<bool>(const model::GroupVersionKind&)>;

// Gives each namespaced object without a namespace `default_namespace` and
// takes it from cluster-scoped ones, as the API server would. A kind is
// looked up in `served` first, then among the CRDs of `objects` at one of
// their versions (accepted before the CRD exists). Throws InvalidInputError
// (nothing applied) naming every object whose kind neither knows.
void resolve_scopes(const ServedScope& served, std::vector<model::Object>& objects,
                    const std::string& default_namespace);

}  // namespace opctl::plan
