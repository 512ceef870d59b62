#include "apply/live_state.hpp"

#include "diff/trimmed_live.hpp"
#include "plan/apply_order.hpp"
#include "plan/kind_scopes.hpp"

namespace opctl::apply {
namespace {

using model::Json;
using model::Object;

model::ObjectKey key_of(const kube::ResourceInfo& info, const Json& object) {
  const auto& metadata = object["metadata"];
  return {info.gvk.group, info.gvk.kind, metadata.value("namespace", ""), metadata.value("name", "")};
}

void keep_managed_fields_of(Json& object, const std::string& manager) {
  if (manager.empty()) return;
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->contains("managedFields")) return;
  Json kept = Json::array();
  for (auto& entry : (*metadata)["managedFields"])
    if (entry.value("manager", "") == manager) kept.push_back(std::move(entry));
  (*metadata)["managedFields"] = std::move(kept);
}

// What of a live object the pass keeps: whole when asked, else trimmed. A
// CRD keeps its status (the pass waits for Established from it), and so does
// a custom kind's resource (`opctl status` shows it).
class LiveRecorder {
 public:
  LiveRecorder(const std::vector<Object>& desired, const LiveStateOptions& options) : options_(options) {
    for (const auto& object : desired)
      desired_[object.key()] = &object;
  }

  // Cuts `item` down to what is kept; false when it is not a desired object.
  bool keep(const kube::ResourceInfo& info, Json& item) const {
    auto found = desired_.find(key_of(info, item));
    if (found == desired_.end()) return false;
    keep_managed_fields_of(item, options_.managed_fields_of);
    if (options_.keep_whole && options_.keep_whole(*found->second, item)) return true;
    diff::TrimOptions trim;
    trim.manager = options_.managed_fields_of;
    trim.keep_status = plan::is_crd(info.gvk) || plan::is_custom_kind(info.gvk);
    for (const auto& rule : options_.ignore_rules)
      if (rule.matches(found->first))
        trim.ignored_pointers.insert(trim.ignored_pointers.end(), rule.json_pointers.begin(),
                                     rule.json_pointers.end());
    item = diff::trim_live(item, trim);
    return true;
  }

  void record(LiveState& state, const kube::ResourceInfo& info, Json item) const {
    if (!keep(info, item)) return;
    auto key = key_of(info, item);
    state.objects[key] = std::move(item);
  }

 private:
  const LiveStateOptions& options_;
  std::map<model::ObjectKey, const Object*> desired_;
};

void get_each(kube::ApiClient& client, const kube::ResourceInfo& info,
              const std::vector<const Object*>& objects, const LiveRecorder& recorder,
              const LiveStateOptions& options, LiveState& state) {
  std::vector<kube::HttpRequest> requests;
  for (const auto* object : objects)
    requests.push_back(client.get_request(info, object->namespace_name(), object->name()));
  auto results = client.execute(requests);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& status = results[i].status;
    if (results[i].ok()) {
      recorder.record(state, info, std::move(results[i].object));
    } else if (options.record_forbidden && status.reason == kube::ApiReason::forbidden) {
      state.unreadable[objects[i]->key()] = status.describe();
    } else if (status.reason != kube::ApiReason::not_found) {
      throw kube::ApiError(status);
    }
  }
}

}  // namespace

LiveState read_live_state(kube::ApiClient& client, const std::vector<Object>& desired,
                          const LiveStateOptions& options) {
  // (group, version, kind, namespace) -> the objects there
  std::map<std::pair<model::GroupVersionKind, std::string>, std::vector<const Object*>> wanted;
  for (const auto& object : desired)
    wanted[{object.gvk(), object.namespace_name()}].push_back(&object);

  LiveRecorder recorder(desired, options);
  LiveState state;
  for (const auto& [where, objects] : wanted) {
    auto info = client.mapper().find(where.first);
    if (!info) continue;
    kube::ListOptions list;
    list.keep_item = [&recorder, &info](Json& item) { return recorder.keep(*info, item); };
    try {
      for (auto& item : client.list(*info, where.second, list)) {
        auto key = key_of(*info, item);  // before the move: Json's operator= takes its argument by value
        state.objects[key] = std::move(item);
      }
    } catch (const kube::ApiError& error) {
      if (error.status().reason != kube::ApiReason::forbidden) throw;
      get_each(client, *info, objects, recorder, options, state);
    }
  }
  return state;
}

}  // namespace opctl::apply
