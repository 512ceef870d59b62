#include "diff/local_apply.hpp"

#include <vector>

#include "diff/field_ownership.hpp"

namespace opctl::diff {
namespace {

using model::Json;

// The merge keys Kubernetes' built-in types declare, for lists whose
// managedFields entry does not show them.
const std::vector<std::vector<std::string>>& known_merge_keys() {
  static const std::vector<std::vector<std::string>> keys = {
      {"containerPort", "protocol"}, {"port", "protocol"}, {"mountPath"}, {"devicePath"}, {"ip"}, {"name"}, {"type"}};
  return keys;
}

std::vector<std::string> keys_from_owned(const Json& owned) {
  if (!owned.is_object()) return {};
  for (const auto& [name, child] : owned.items()) {
    if (!name.starts_with("k:")) continue;
    Json key = Json::parse(name.substr(2), nullptr, false);
    std::vector<std::string> fields;
    if (key.is_object())
      for (const auto& [field, value] : key.items()) fields.push_back(field);
    return fields;
  }
  return {};
}

std::vector<std::string> guess_keys(const Json& list) {
  for (const auto& candidate : known_merge_keys()) {
    bool all_have = !list.empty();
    for (const auto& item : list)
      all_have = all_have && item.is_object() && item.contains(candidate.front());
    if (all_have) return candidate;
  }
  return {};
}

bool same_key(const Json& a, const Json& b, const std::vector<std::string>& keys) {
  for (const auto& field : keys)
    if (a.value(field, Json()) != b.value(field, Json())) return false;
  return true;
}

void merge(Json& target, const Json& desired, const Json& owned);

void merge_list(Json& target, const Json& desired, const Json& owned) {
  std::vector<std::string> keys = keys_from_owned(owned);
  if (keys.empty()) keys = guess_keys(desired);
  if (keys.empty() || !target.is_array()) {
    target = desired;
    return;
  }
  Json merged = Json::array();
  for (const auto& element : desired) {
    Json result = element;
    for (const auto& existing : target)
      if (same_key(existing, element, keys)) {
        result = existing;
        merge(result, element, Json::object());
      }
    merged.push_back(std::move(result));
  }
  // Elements another manager added stay; those this manager owned and dropped go.
  for (const auto& existing : target) {
    bool in_desired = false;
    for (const auto& element : desired) in_desired = in_desired || same_key(existing, element, keys);
    if (in_desired) continue;
    Json key = Json::object();
    for (const auto& field : keys) key[field] = existing.value(field, Json());
    bool owned_by_us = owned.is_object() && owned.contains("k:" + key.dump());
    if (!owned_by_us) merged.push_back(existing);
  }
  target = std::move(merged);
}

void merge(Json& target, const Json& desired, const Json& owned) {
  if (!desired.is_object() || !target.is_object()) {
    target = desired;
    return;
  }
  for (const auto& [field, value] : desired.items()) {
    const Json& child_owned = owned.is_object() && owned.contains("f:" + field) ? owned["f:" + field] : Json::object();
    if (value.is_object() && target.contains(field) && target[field].is_object()) {
      merge(target[field], value, child_owned);
    } else if (value.is_array()) {
      if (!target.contains(field)) target[field] = Json::array();
      merge_list(target[field], value, child_owned);
    } else {
      target[field] = value;
    }
  }
}

// Removes fields `owned` lists that `desired` no longer has.
void remove_dropped(Json& target, const Json& desired, const Json& owned) {
  if (!owned.is_object() || !target.is_object()) return;
  for (const auto& [name, child] : owned.items()) {
    if (!name.starts_with("f:")) continue;
    std::string field = name.substr(2);
    if (!desired.is_object() || !desired.contains(field)) {
      target.erase(field);
    } else if (desired[field].is_object() && target.contains(field)) {
      remove_dropped(target[field], desired[field], child);
    }
  }
}

}  // namespace

Json local_apply(const Json& live, const Json& desired, const std::string& manager) {
  Json result = live;
  Json owned = applied_fields(live, manager).value_or(Json::object());
  remove_dropped(result, desired, owned);
  merge(result, desired, owned);
  return result;
}

}  // namespace opctl::diff
