#include "kinds/round_reads.hpp"

#include <algorithm>
#include <iterator>

#include "kinds/kind_reconciler.hpp"
#include "kube/api_error.hpp"

namespace opctl::kinds {

using model::Json;

namespace {

std::string name_of(const Json& object) {
  const Json& metadata = object.value("metadata", Json::object());
  return metadata.is_object() ? metadata.value("name", "") : "";
}

std::string owner_of(const Json& object) {
  const Json& metadata = object.value("metadata", Json::object());
  if (!metadata.is_object() || !metadata.contains("labels") || !metadata["labels"].is_object()) return "";
  return metadata["labels"].value(k_owner_uid_label, "");
}

// A child keeps the managedFields entries of opctl's controller only: whether an apply of it would change
// anything is read from those (diff::apply_is_noop), and the kubelet's and controllers' entries (a Pod's
// status) were most of what a round holding every child of 200 Clusters kept.
bool keep_controller_fields(Json& item) {
  if (!item.contains("metadata") || !item["metadata"].is_object()) return true;
  Json& metadata = item["metadata"];
  if (!metadata.contains("managedFields") || !metadata["managedFields"].is_array()) return true;
  Json kept = Json::array();
  for (auto& entry : metadata["managedFields"])
    if (entry.is_object() && entry.value("manager", "") == k_controller_field_manager)
      kept.push_back(std::move(entry));
  metadata["managedFields"] = std::move(kept);
  return true;
}

}  // namespace

RoundReads::CollectionKey RoundReads::key_of(const kube::ResourceInfo& resource,
                                             const std::string& namespace_name) {
  return {resource.gvk.group, resource.resource, resource.namespaced ? namespace_name : ""};
}

std::optional<Json> RoundReads::object(const kube::ResourceInfo& resource, const std::string& namespace_name,
                                       const std::string& name) {
  CollectionKey key = key_of(resource, namespace_name);
  auto found = collections_.find(key);
  if (found == collections_.end()) {
    Collection collection;
    auto outcome =
        std::move(client_.list_all({kube::ListTarget{resource, std::get<2>(key), {}, ""}}).front());
    if (outcome.ok()) {
      for (auto& item : outcome.items) {
        std::string item_name = name_of(item);
        collection.by_name.emplace(std::move(item_name), std::move(item));
      }
    } else {
      collection.listable = false;
    }
    found = collections_.emplace(key, std::move(collection)).first;
  }
  if (found->second.listable) {
    auto item = found->second.by_name.find(name);
    if (item == found->second.by_name.end()) return std::nullopt;
    return item->second;
  }
  auto live = client_.execute(client_.get_request(resource, namespace_name, name));
  if (live.status.reason == kube::ApiReason::not_found) return std::nullopt;
  if (!live.ok()) throw kube::ApiError(live.status);
  return std::move(live.object);
}

std::vector<Json> RoundReads::owned(const std::vector<kube::ResourceInfo>& resources,
                                    const std::string& namespace_name, const std::string& uid) {
  std::vector<kube::ListTarget> missing;
  std::vector<CollectionKey> missing_keys;
  for (const auto& resource : resources) {
    CollectionKey key = key_of(resource, namespace_name);
    if (owned_.contains(key) ||
        std::find(missing_keys.begin(), missing_keys.end(), key) != missing_keys.end())
      continue;
    kube::ListOptions options;
    options.label_selector = std::string(k_owner_uid_label);  // every owned object, whoever owns it
    options.keep_item = keep_controller_fields;
    missing.push_back({resource, std::get<2>(key), options, ""});
    missing_keys.push_back(key);
  }
  if (!missing.empty()) {
    auto outcomes = client_.list_all(missing);
    for (auto& outcome : outcomes)
      if (!outcome.ok()) throw kube::ApiError(outcome.status);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      auto& by_owner = owned_[missing_keys[i]];
      for (auto& item : outcomes[i].items) {
        std::string owner = owner_of(item);
        by_owner[owner].push_back(std::move(item));
      }
    }
  }
  // Handed over, not copied: a resource reads its children once a round (a second read finds none), and the
  // round's lists shrink as its resources are reconciled.
  std::vector<Json> out;
  for (const auto& resource : resources) {
    auto& by_owner = owned_[key_of(resource, namespace_name)];
    if (auto found = by_owner.find(uid); found != by_owner.end()) {
      out.insert(out.end(), std::make_move_iterator(found->second.begin()),
                 std::make_move_iterator(found->second.end()));
      by_owner.erase(found);
    }
  }
  return out;
}

void RoundReads::remember(const kube::ResourceInfo& resource, const Json& object) {
  const Json& metadata = object.value("metadata", Json::object());
  if (!metadata.is_object()) return;
  auto found = collections_.find(key_of(resource, metadata.value("namespace", "")));
  if (found == collections_.end() || !found->second.listable) return;
  found->second.by_name[name_of(object)] = object;
}

}  // namespace opctl::kinds
