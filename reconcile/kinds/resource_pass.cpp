#include "kinds/resource_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "apply/cluster_events.hpp"
#include "kinds/child_writer.hpp"
#include "kinds/conditions.hpp"
#include "kube/api_error.hpp"

namespace opctl::kinds {
namespace {

using model::Json;

std::string condition_summary(const std::vector<Condition>& conditions) {
  const Condition* ready = nullptr;
  for (const auto& condition : conditions) {
    if (condition.type == "Degraded" && condition.status)
      return fmt::format("Degraded ({}): {}", condition.reason, condition.message);
    if (condition.type == "Ready") ready = &condition;
  }
  if (ready == nullptr) return "reconciled";
  if (ready->status) return ready->message.empty() ? "Ready" : "Ready: " + ready->message;
  return fmt::format("not Ready ({}): {}", ready->reason, ready->message);
}

bool condition_set(const std::vector<Condition>& conditions, const std::string& type) {
  return std::any_of(conditions.begin(), conditions.end(),
                     [&](const Condition& condition) { return condition.type == type && condition.status; });
}

TargetState failure(const std::string& message) {
  TargetState state;
  state.failed = true;
  state.summary = message;
  return state;
}

TargetState gone() {
  TargetState state;
  state.gone = true;
  state.ready = true;
  return state;
}

}  // namespace

TargetState ResourcePass::run() {
  auto resource = client_.mapper().find(target_.reconciler->kind());
  if (!resource) return failure(fmt::format("the server does not serve {}", target_.api_version));
  resource_ = *resource;
  std::optional<Json> live;
  try {
    live = reads_.object(resource_, target_.key.namespace_name, target_.key.name);
  } catch (const kube::ApiError& error) {
    return failure(std::string("cannot read it: ") + error.what());
  }
  if (!live) return gone();
  observed_.parent = std::move(*live);
  parent_ = ParentRef::of(observed_.parent);
  observed_.finalizing = observed_.parent["metadata"].contains("deletionTimestamp");
  if (observed_.finalizing && managed_finalizers(observed_.parent, k_controller_field_manager).empty())
    return gone();
  try {
    read_children();
    read_related();
  } catch (const Error& error) {
    return degrade("ReconcileError", error.what());
  }
  ReconcileResult result;
  try {
    result = target_.reconciler->reconcile(observed_, context_);
  } catch (const std::exception& error) {
    return degrade("ReconcileError", std::string("the reconciler failed: ") + error.what());
  }
  return write(result);
}

void ResourcePass::read_children() {
  std::vector<kube::ResourceInfo> resources;
  for (const auto& gvk : target_.reconciler->child_kinds()) {
    auto resource = client_.mapper().find(gvk);
    if (!resource)
      throw Error(ErrorCategory::cluster,
                  fmt::format("the server does not serve child kind {} {}", gvk.api_version(), gvk.kind));
    resources.push_back(std::move(*resource));
  }
  observed_.children = reads_.owned(resources, parent_.namespace_name, parent_.uid);
}

void ResourcePass::read_related() {
  std::vector<kube::HttpRequest> gets;
  for (const auto& reference : target_.reconciler->related(observed_.parent)) {
    auto resource = client_.mapper().find(reference.gvk);
    if (!resource) continue;  // a kind the server does not serve has no objects
    // Another custom resource (a Backup's Cluster) comes from the round's list of its kind, as its own pass
    // reads it; anything else (a user's Secret or ConfigMap) by name, so no other object of its kind is read.
    if (reads_.lists_related(reference.gvk)) {
      if (auto found = reads_.object(*resource, reference.namespace_name, reference.name))
        observed_.related.push_back(std::move(*found));
      continue;
    }
    gets.push_back(client_.get_request(*resource, reference.namespace_name, reference.name));
  }
  for (auto& result : client_.execute(gets)) {
    if (result.status.reason == kube::ApiReason::not_found) continue;
    if (!result.ok())
      throw Error(ErrorCategory::cluster, "cannot read a related object: " + result.status.describe());
    observed_.related.push_back(std::move(result.object));
  }
}

bool ResourcePass::write_finalizers(const ReconcileResult& result) {
  auto held = managed_finalizers(observed_.parent, k_controller_field_manager);
  std::set<std::string> wanted(result.finalizers.begin(), result.finalizers.end());
  if (held == wanted) return true;
  auto response = client_.execute(client_.apply_request(
      resource_, model::Object(finalizer_body(parent_, result.finalizers)), controller_apply()));
  if (response.ok()) reads_.remember(resource_, response.object);
  if (response.ok() || response.status.reason == kube::ApiReason::not_found) return true;
  write_error_ = "cannot update its finalizers: " + response.status.describe();
  return false;
}

bool ResourcePass::write_status(const Json& status) {
  const Json& live = observed_.parent.value("status", Json::object());
  if (live == status) return true;
  auto response = client_.execute(client_.apply_status_request(
      resource_, model::Object(status_body(parent_, status)), controller_apply()));
  if (response.ok()) reads_.remember(resource_, response.object);
  if (response.ok() || response.status.reason == kube::ApiReason::not_found) return true;
  write_error_ = "cannot write its status: " + response.status.describe();
  return false;
}

std::string ResourcePass::record_events(const ReconcileResult& result) {
  if (result.events.empty()) return "";
  std::string refused;
  apply::ClusterEvents events(client_, [&](const std::string& warning) { refused = warning; });
  apply::EventSubject subject{parent_.kind, parent_.name, parent_.namespace_name, parent_.uid,
                              parent_.api_version};
  for (const auto& event : result.events)
    events.record(subject, event.type, event.reason, event.message);
  return refused;
}

Json ResourcePass::status_of(const ReconcileResult& result) const {
  Json status = result.status.is_object() ? result.status : Json::object();
  status["observedGeneration"] = parent_.generation;
  const Json& live = observed_.parent.value("status", Json::object());
  status["conditions"] =
      merge_conditions(result.conditions, live.is_object() ? live.value("conditions", Json()) : Json(),
                       parent_.generation, context_.clock.wall_now());
  return status;
}

TargetState ResourcePass::write(const ReconcileResult& result) {
  ChildWriter children(client_, parent_, log_,
                       {target_.key.to_string(), options_.delete_propagation, target_.wave,
                        options_.first_round, options_.stop_requested});
  children.write(result, observed_.children);
  std::string events_refused = record_events(result);
  // Status first: dropping the last finalizer may delete the parent at once.
  bool written = write_status(status_of(result)) && write_finalizers(result);
  TargetState state;
  state.ready = condition_set(result.conditions, "Ready");
  state.failed = condition_set(result.conditions, "Degraded") || children.failed() || !written;
  state.requeue = result.requeue_after;
  state.summary = condition_summary(result.conditions);
  if (observed_.finalizing) {
    // Done when the reconciler let go of its finalizers; until then, waiting.
    state.ready = result.finalizers.empty();
    state.summary = state.ready ? "finalized" : "finalizing: " + state.summary;
  }
  if (children.failed()) state.summary += "; some children could not be applied or deleted";
  if (!written) state.summary += "; " + write_error_;
  if (!events_refused.empty()) state.summary += "; " + events_refused;
  return state;
}

// The runner could not reconcile: say so on Degraded, keep everything else.
TargetState ResourcePass::degrade(const std::string& reason, const std::string& message) {
  ReconcileResult result;
  const Json& live = observed_.parent.value("status", Json::object());
  result.status = live.is_object() ? live : Json::object();
  result.conditions = conditions_from_json(result.status.value("conditions", Json()));
  result.status.erase("conditions");
  std::erase_if(result.conditions, [](const Condition& condition) { return condition.type == "Degraded"; });
  result.conditions.push_back({"Degraded", true, reason, message});
  write_status(status_of(result));
  return failure(message);
}

}  // namespace opctl::kinds
