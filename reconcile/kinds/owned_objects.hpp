// Pure helpers of the kind runner: how a desired child is stamped as owned,
// which live children a parent controls, which finalizers the controller's
// field manager holds, and the bodies of the finalizer and status applies.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "kinds/kind_reconciler.hpp"
#include "kube/api_client.hpp"

namespace opctl::kinds {

// How the controller writes (children, status, finalizers): server-side
// apply as k_controller_field_manager, forced, since a controller owns what
// it writes.
kube::ApplyOptions controller_apply();

// The parent's identity as children and writes need it.
struct ParentRef {
  std::string api_version;
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string uid;
  long generation = 0;

  static ParentRef of(const model::Json& live);
};

struct PreparedChild {
  model::Json body;
  bool create_only = false;
  std::string problem;  // why it cannot be applied; empty when fine
};

// The child with its namespace defaulted to the parent's, the owner-uid
// label and a controller ownerReference; a child in another namespace is a problem.
PreparedChild prepare_child(const model::Json& child, const ParentRef& parent);

// Whether `object`'s controller ownerReference is the parent with this uid.
bool controlled_by(const model::Json& object, const std::string& uid);

// The finalizers the field manager holds on the main resource (from managedFields).
std::set<std::string> managed_finalizers(const model::Json& live, const std::string& manager);

// The server-side apply bodies: metadata.finalizers alone, and status alone.
// Both carry metadata.uid, so they fail instead of recreating a deleted parent.
model::Json finalizer_body(const ParentRef& parent, const std::vector<std::string>& finalizers);
model::Json status_body(const ParentRef& parent, const model::Json& status);

}  // namespace opctl::kinds
