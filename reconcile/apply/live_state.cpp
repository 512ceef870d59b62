#include "apply/live_state.hpp"

#include <set>

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

void record(LiveState& state, const kube::ResourceInfo& info, Json object, const LiveStateOptions& options) {
  auto key = key_of(info, object);
  keep_managed_fields_of(object, options.managed_fields_of);
  state.objects[key] = std::move(object);
}

void get_each(kube::ApiClient& client, const kube::ResourceInfo& info,
              const std::vector<const Object*>& objects, const LiveStateOptions& options, LiveState& state) {
  std::vector<kube::HttpRequest> requests;
  for (const auto* object : objects)
    requests.push_back(client.get_request(info, object->namespace_name(), object->name()));
  auto results = client.execute(requests);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& status = results[i].status;
    if (results[i].ok()) {
      record(state, info, std::move(results[i].object), options);
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

  std::set<model::ObjectKey> desired_keys;
  for (const auto& object : desired)
    desired_keys.insert(object.key());

  LiveState state;
  for (const auto& [where, objects] : wanted) {
    auto info = client.mapper().find(where.first);
    if (!info) continue;
    try {
      for (auto& item : client.list(*info, where.second))
        if (desired_keys.contains(key_of(*info, item))) record(state, *info, std::move(item), options);
    } catch (const kube::ApiError& error) {
      if (error.status().reason != kube::ApiReason::forbidden) throw;
      get_each(client, *info, objects, options, state);
    }
  }
  return state;
}

}  // namespace opctl::apply
