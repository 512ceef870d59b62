// One apply pass: map every desired object to its resource, then server-side
// apply group by group in plan order, reporting each object's outcome.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "kube/api_client.hpp"
#include "model/object.hpp"

namespace opctl::apply {

enum class Action { created, configured, unchanged, failed };

const char* to_string(Action action);

struct ObjectOutcome {
  model::ObjectKey key;
  std::string api_version;
  model::SourceLocation location;
  Action action = Action::failed;
  std::string message;  // why it failed
};

struct PassReport {
  std::vector<ObjectOutcome> outcomes;
  std::chrono::milliseconds duration{0};
  std::size_t count(Action action) const;
  bool ok() const { return count(Action::failed) == 0; }
};

struct PassOptions {
  std::string default_namespace = "default";
  kube::ApplyOptions apply;
  std::chrono::seconds crd_established_timeout{60};
  // Called as each object's outcome is known (progress output).
  std::function<void(const ObjectOutcome&)> on_outcome;
};

// Resolves each object's resource and fills in the default namespace for
// namespaced objects that have none. Kinds served by a CRD in `objects` are
// accepted before the CRD exists. Throws InvalidInputError (nothing applied)
// for kinds the server does not serve.
void resolve_scopes(kube::RestMapper& mapper, std::vector<model::Object>& objects,
                    const std::string& default_namespace);

// Applies `objects` (already validated). Per-object failures are data in the
// report; a failure stops later groups, since they may depend on it.
PassReport run_apply_pass(kube::ApiClient& client, std::vector<model::Object> objects, const PassOptions& options);

}  // namespace opctl::apply
