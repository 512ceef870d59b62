// The ApplySet inventory (KEP-3659), so that kubectl understands opctl's set:
// a parent Secret labelled with the set's ID, members labelled part-of it,
// and annotations naming the tooling, the group-kinds and the namespaces.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/object.hpp"
#include "plan/group_kind.hpp"

namespace opctl::plan {

inline constexpr const char* k_applyset_id_label = "applyset.kubernetes.io/id";
inline constexpr const char* k_applyset_part_of_label = "applyset.kubernetes.io/part-of";
inline constexpr const char* k_applyset_tooling_annotation = "applyset.kubernetes.io/tooling";
inline constexpr const char* k_applyset_group_kinds_annotation =
    "applyset.kubernetes.io/contains-group-kinds";
inline constexpr const char* k_applyset_namespaces_annotation =
    "applyset.kubernetes.io/additional-namespaces";

struct ApplySetParent {
  std::string name;  // the Secret's name
  std::string namespace_name;

  // applyset-<base64url(sha256(name.namespace.Secret.))>-v1, as kubectl computes it.
  std::string id() const;
  // "namespace/name", as messages name the set.
  std::string qualified_name() const { return namespace_name + "/" + name; }
};

// What the parent records about its members.
struct ApplySetInventory {
  std::set<GroupKind> group_kinds;
  std::set<std::string> namespaces;  // besides the parent's own

  static ApplySetInventory of(const std::vector<model::Object>& objects, const std::string& parent_namespace);
  static ApplySetInventory from_parent(const model::Json& parent);
  ApplySetInventory merged_with(const ApplySetInventory& other) const;
};

// The parent Secret, for a server-side apply, recording `inventory`.
model::Object applyset_parent_object(const ApplySetParent& parent, const ApplySetInventory& inventory,
                                     const std::string& tooling);

// Labels every member as part of the set.
void label_members(std::vector<model::Object>& objects, const ApplySetParent& parent);

}  // namespace opctl::plan
