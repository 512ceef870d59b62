// Live state for a desired set, read with one paginated LIST per resource and
// namespace rather than one GET per object, and kept trimmed to what a pass
// reads (diff/trimmed_live.hpp) as each item is parsed.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "diff/ignore_rules.hpp"
#include "kube/api_client.hpp"
#include "model/object.hpp"
#include "plan/pass_plan.hpp"

namespace opctl::apply {

struct LiveState : plan::LiveObjects {
  // Objects that could not be read at all (LIST and GET Forbidden), with the
  // server's reason; only filled with LiveStateOptions::record_forbidden.
  std::map<model::ObjectKey, std::string> unreadable;
};

struct LiveStateOptions {
  // Record a Forbidden GET in `unreadable` instead of throwing, so that one
  // kind the credentials may not read (Secrets, often) does not hide the rest.
  bool record_forbidden = false;
  // The field manager whose managedFields entries are kept (the fast path,
  // the local comparison and ignoreDifferences read no other) and whose
  // owned values a trimmed object keeps.
  std::string managed_fields_of = kube::k_field_manager;
  // A trimmed object keeps the live values of the fields these name.
  std::vector<diff::IgnoreRule> ignore_rules;
  // Objects for which this says true are kept whole, but for other managers'
  // managedFields entries (`opctl diff` shows the live side of an object that
  // changes); the rest are trimmed. Unset: every object is trimmed.
  std::function<bool(const model::Object& desired, const model::Json& live)> keep_whole;
  // Objects for which this says true (and keep_whole does not) are only
  // recorded in `settled` (plan::settles()); CRDs never are, a pass reads
  // their status (Established). Unset: none is.
  std::function<bool(const model::Object& desired, const model::Json& live)> settles;
  // Custom resources (kinds of a non-built-in group) keep their status and
  // are never settled: `opctl status` reports their Ready condition. A pass
  // and a diff read no custom resource's status, and settle them.
  bool keep_custom_resource_status = false;
  // Told the index (in `desired`) of each object as it settles, once each,
  // while LIST pages are still read: the owner of the set cuts it down to
  // what a pass still reads of it (plan::keep_settled_identity). A settled
  // object is not compared again, so the cut never reaches settles().
  std::function<void(std::size_t index)> on_settled;
};

// Lists every (resource, namespace) the desired objects live in and keeps the
// desired objects only (a namespace's other objects are never read). Kinds the
// server does not serve yet (their CRD is in the set) are simply absent. When
// a LIST is Forbidden, falls back to a GET per object. Throws ApiError on
// other failures.
LiveState read_live_state(kube::ApiClient& client, const std::vector<model::Object>& desired,
                          const LiveStateOptions& options = {});

}  // namespace opctl::apply
