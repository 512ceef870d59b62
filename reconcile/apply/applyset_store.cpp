#include "apply/applyset_store.hpp"

#include <fmt/format.h>

#include <iterator>

#include "apply/run_history.hpp"
#include "apply/set_pin.hpp"
#include "apply/set_source.hpp"
#include "plan/kind_scopes.hpp"
#include "plan/prune_set.hpp"

namespace opctl::apply {

using model::Json;

namespace {
kube::ResourceInfo secret_resource() {
  return kube::core_v1_resource("Secret", "secrets", true);
}

// What prune reads of a member: which object it is, its uid (the delete's
// precondition), its annotations (wave, prune: disabled) and whether it is
// going already. At N = 5000 members the rest would be most of a pass's memory.
Json member_identity(const Json& live) {
  Json kept = Json::object();
  for (const char* field : {"apiVersion", "kind"})
    if (auto found = live.find(field); found != live.end()) kept[field] = *found;
  auto metadata = live.find("metadata");
  if (metadata == live.end() || !metadata->is_object()) return kept;
  kept["metadata"] = Json::object();
  for (const char* field :
       {"name", "namespace", "uid", "resourceVersion", "labels", "annotations", "deletionTimestamp"})
    if (auto found = metadata->find(field); found != metadata->end()) kept["metadata"][field] = *found;
  return kept;
}
}  // namespace

std::optional<Json> ApplySetStore::read() {
  auto result = client_.execute(client_.get_request(secret_resource(), parent_.namespace_name, parent_.name));
  if (result.status.reason == kube::ApiReason::not_found) return std::nullopt;
  if (!result.ok()) throw kube::ApiError(result.status);
  const auto annotations = result.object["metadata"].value("annotations", Json::object());
  std::string tooling = annotations.value(plan::k_applyset_tooling_annotation, "");
  if (!tooling.empty() && !tooling.starts_with("opctl/"))
    throw InvalidInputError(
        {Problem{"", 0, "",
                 fmt::format("the ApplySet parent Secret {}/{} belongs to \"{}\", not opctl; "
                             "choose another config name",
                             parent_.namespace_name, parent_.name, tooling)}});
  return result.object;
}

RunRecords RunRecords::of(const std::optional<Json>& parent) {
  if (!parent) return {};
  const Json annotations = (*parent)["metadata"].value("annotations", Json::object());
  return {annotations.value(k_last_run_annotation, ""), annotations.value(k_last_success_annotation, ""),
          annotations.value(k_history_annotation, ""), annotations.value(k_pin_annotation, "")};
}

Json ApplySetStore::write(const plan::ApplySetInventory& inventory, const RunRecords& records) {
  model::Object object = plan::applyset_parent_object(parent_, inventory, tooling_);
  if (!records.last_run.empty()) object.set_annotation(k_last_run_annotation, records.last_run);
  if (!records.last_success.empty()) object.set_annotation(k_last_success_annotation, records.last_success);
  if (!records.history.empty()) object.set_annotation(k_history_annotation, records.history);
  if (!records.pin.empty()) object.set_annotation(k_pin_annotation, records.pin);
  if (!source_.empty()) object.set_annotation(k_set_source_annotation, source_);
  kube::ApplyOptions options;
  options.force = true;  // the parent is opctl's own bookkeeping
  auto result = client_.execute(client_.apply_request(secret_resource(), object, options));
  if (!result.ok()) throw kube::ApiError(result.status);
  return result.object;
}

std::vector<Json> ApplySetStore::members(const plan::ApplySetInventory& inventory,
                                         const std::function<bool(const Json&)>& keep_whole) {
  std::vector<Json> found;
  kube::ListOptions options;
  options.label_selector = fmt::format("{}={}", plan::k_applyset_part_of_label, parent_.id());
  options.keep_item = [&keep_whole](Json& item) {
    auto key = plan::key_of_live(item);
    bool whole = plan::is_crd({key.group, "", key.kind}) || (keep_whole && keep_whole(item));
    if (!whole) item = member_identity(item);
    return true;
  };
  std::set<std::string> namespaces = inventory.namespaces;
  namespaces.insert(parent_.namespace_name);
  std::vector<kube::ListTarget> targets;
  for (const auto& group_kind : inventory.group_kinds) {
    std::optional<kube::ResourceInfo> info;
    for (const auto& [gvk, candidate] : client_.mapper().all())
      if (gvk.group == group_kind.group && gvk.kind == group_kind.kind) {
        info = candidate;
        break;
      }
    if (!info) continue;  // the kind is gone (its CRD was deleted): nothing left to prune
    if (!info->namespaced) {
      targets.push_back({*info, "", options, ""});
      continue;
    }
    for (const auto& namespace_name : namespaces)
      targets.push_back({*info, namespace_name, options, ""});
  }
  for (auto& outcome : client_.list_all(targets)) {
    if (!outcome.ok()) throw kube::ApiError(outcome.status);
    std::move(outcome.items.begin(), outcome.items.end(), std::back_inserter(found));
  }
  return found;
}

}  // namespace opctl::apply
