#include "kinds/hook/hook_reconciler.hpp"

#include <fmt/format.h>

#include "kinds/conditions.hpp"

namespace opctl::kinds::hook {
namespace {

using model::Json;

// A finalizing resource whose hook has not said "finalized" is asked again this often.
constexpr std::chrono::seconds k_finalize_requeue{5};

std::string child_key(const Json& object) {
  return object.value("kind", "") + "." + object.value("apiVersion", "");
}

// The parent's own status, without what the runner writes.
Json hook_status(const Json& status) {
  Json copy = status.is_object() ? status : Json::object();
  copy.erase("conditions");
  copy.erase("observedGeneration");
  return copy;
}

void set_condition(std::vector<Condition>& conditions, Condition condition) {
  for (auto& existing : conditions)
    if (existing.type == condition.type) {
      existing = std::move(condition);
      return;
    }
  conditions.push_back(std::move(condition));
}

bool has_condition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& condition : conditions)
    if (condition.type == type) return true;
  return false;
}

}  // namespace

HookReconciler::HookReconciler(config::HookKind config, std::unique_ptr<HookTransport> transport)
    : config_(std::move(config)), transport_(std::move(transport)) {}

model::GroupVersionKind HookReconciler::kind() const {
  return model::GroupVersionKind::from(config_.api_version, config_.kind);
}

std::vector<model::GroupVersionKind> HookReconciler::child_kinds() const {
  std::vector<model::GroupVersionKind> kinds;
  for (const auto& child : config_.children)
    kinds.push_back(model::GroupVersionKind::from(child.api_version, child.kind));
  return kinds;
}

Json HookReconciler::request(const Observed& observed) const {
  Json children = Json::object();
  for (const auto& child : config_.children)
    children[child.kind + "." + child.api_version] = Json::object();
  for (const auto& child : observed.children)
    children[child_key(child)][child["metadata"].value("name", "")] = child;
  return {{"controller", {{"apiVersion", config_.api_version}, {"kind", config_.kind}}},
          {"parent", observed.parent},
          {"children", children},
          {"related", Json::object()},
          {"finalizing", observed.finalizing}};
}

ReconcileResult HookReconciler::reconcile(const Observed& observed, Context& /*context*/) {
  std::string text;
  try {
    text = transport_->call(request(observed).dump());
  } catch (const HookError& error) {
    return failed(observed, error.what());
  }
  return from_response(observed, text);
}

ReconcileResult HookReconciler::from_response(const Observed& observed, const std::string& text) const {
  Json response = Json::parse(text, nullptr, false);
  if (response.is_discarded() || !response.is_object())
    return failed(observed, "the hook's answer is not a JSON object: " + text.substr(0, 200));
  if (!response.contains("children") || !response["children"].is_array())
    return failed(observed, "the hook's answer has no \"children\" list (send [] to have no children)");
  if (response.contains("status") && !response["status"].is_null() && !response["status"].is_object())
    return failed(observed, "the hook's \"status\" is not an object");
  auto parent_namespace = observed.parent["metadata"].value("namespace", "");
  ReconcileResult result;
  auto allowed = child_kinds();
  for (const auto& child : response["children"]) {
    if (!child.is_object() || !child.contains("metadata") || !child["metadata"].is_object() ||
        child["metadata"].value("name", "").empty() || !child.contains("apiVersion") ||
        !child.contains("kind"))
      return failed(observed, "a child in the hook's answer lacks apiVersion, kind or metadata.name");
    auto gvk = model::GroupVersionKind::from(child.value("apiVersion", ""), child.value("kind", ""));
    if (std::find(allowed.begin(), allowed.end(), gvk) == allowed.end())
      return failed(observed,
                    fmt::format("the hook returned a child of kind {} {}, which is not among this kind's "
                                "children in opctl.yaml (spec.kinds[].children)",
                                gvk.api_version(), gvk.kind));
    std::string child_namespace = child["metadata"].value("namespace", "");
    if (!child_namespace.empty() && child_namespace != parent_namespace)
      return failed(
          observed,
          fmt::format("the hook returned {} {} in namespace {}; children live in the parent's "
                      "namespace {}",
                      gvk.kind, child["metadata"].value("name", ""), child_namespace, parent_namespace));
    result.children.push_back(child);
  }
  const Json& status = response.value("status", Json::object());
  result.status = hook_status(status);
  result.conditions =
      conditions_from_json(status.is_object() ? status.value("conditions", Json::array()) : Json());
  if (!has_condition(result.conditions, "Ready"))
    result.conditions.push_back({"Ready", true, "HookSucceeded", ""});
  set_condition(result.conditions, {"Degraded", false, "AsExpected", ""});
  long resync = response.contains("resyncAfterSeconds") && response["resyncAfterSeconds"].is_number()
                    ? static_cast<long>(response["resyncAfterSeconds"].get<double>())
                    : 0;
  if (resync > 0) result.requeue_after = std::chrono::seconds(resync);
  bool finalized = response.value("finalized", false) == true;
  result.finalizers = finalizers(observed, finalized);
  if (observed.finalizing && config_.finalize && !finalized && !result.requeue_after)
    result.requeue_after = k_finalize_requeue;
  return result;
}

ReconcileResult HookReconciler::failed(const Observed& observed, const std::string& message) const {
  ReconcileResult result;
  result.keep_unlisted = true;
  const Json& live = observed.parent.value("status", Json::object());
  result.status = hook_status(live);
  result.conditions =
      conditions_from_json(live.is_object() ? live.value("conditions", Json::array()) : Json());
  if (!has_condition(result.conditions, "Ready"))
    result.conditions.push_back({"Ready", false, "HookFailed", message});
  set_condition(result.conditions, {"Degraded", true, "HookFailed", message});
  result.finalizers = finalizers(observed, false);
  return result;
}

std::vector<std::string> HookReconciler::finalizers(const Observed& observed, bool finalized) const {
  if (!config_.finalize) return {};
  if (observed.finalizing && finalized) return {};
  return {k_hook_finalizer};
}

std::vector<Problem> HookReconciler::validate(const model::Object& /*object*/) const {
  return {};
}

Json HookReconciler::custom_resource_definition() const {
  return nullptr;
}

std::unique_ptr<KindReconciler> make_hook_reconciler(const config::HookKind& config) {
  auto transport = config.url.empty() ? command_transport(config.command, config.timeout)
                                      : http_transport(config.url, config.timeout);
  return std::make_unique<HookReconciler>(config, std::move(transport));
}

}  // namespace opctl::kinds::hook
