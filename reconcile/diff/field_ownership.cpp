#include "diff/field_ownership.hpp"

#include <set>

namespace opctl::diff {
namespace {

using model::Json;

bool values_equal(const Json& desired, const Json& live) {
  if (desired.is_number() && live.is_number()) return desired.get<double>() == live.get<double>();
  return desired == live;
}

// A k:{...} key of an associative list element matches `element` when every
// key field has the same value.
bool key_matches(const Json& key, const Json& element) {
  if (!element.is_object()) return false;
  for (const auto& [field, value] : key.items())
    if (!element.contains(field) || !values_equal(value, element[field])) return false;
  return true;
}

// The same for a desired element, which may leave out key fields the server
// defaults (a port's protocol): those it does give must match.
bool desired_key_matches(const Json& key, const Json& element) {
  if (!element.is_object()) return false;
  bool any = false;
  for (const auto& [field, value] : key.items()) {
    if (!element.contains(field)) continue;
    if (!values_equal(value, element[field])) return false;
    any = true;
  }
  return any;
}

bool match_value(const Json& desired, const Json& owned, const Json& live);

bool match_map(const Json& desired, const Json& owned, const Json& live, bool top_level) {
  if (!live.is_object() || !owned.is_object()) return false;
  std::set<std::string> owned_keys;
  for (const auto& [name, child] : owned.items())
    if (name != ".") owned_keys.insert(name);
  for (const auto& [field, value] : desired.items()) {
    // apiVersion, kind, name and namespace identify the object; SSA does not list them as owned.
    if (top_level && (field == "apiVersion" || field == "kind")) continue;
    std::string owned_name = "f:" + field;
    if (!owned_keys.erase(owned_name)) return false;
    if (!live.contains(field)) return false;
    if (!match_value(value, owned[owned_name], live[field])) return false;
  }
  return owned_keys.empty();
}

bool match_metadata(const Json& desired, const Json& owned, const Json& live) {
  Json trimmed = desired;
  trimmed.erase("name");
  trimmed.erase("namespace");
  return match_map(trimmed, owned, live, false);
}

bool match_list(const Json& desired, const Json& owned, const Json& live) {
  if (!live.is_array()) return false;
  if (owned.empty()) return desired == live;  // atomic: SSA replaces it whole
  std::set<std::string> owned_keys;
  for (const auto& [name, child] : owned.items())
    if (name != ".") owned_keys.insert(name);
  for (const auto& element : desired) {
    bool found = false;
    for (const auto& name : owned_keys) {
      if (name.starts_with("v:")) {
        Json value = Json::parse(name.substr(2), nullptr, false);
        if (!values_equal(value, element)) continue;
        bool live_has = false;
        for (const auto& item : live) live_has = live_has || values_equal(item, element);
        if (!live_has) return false;
      } else if (name.starts_with("k:")) {
        Json key = Json::parse(name.substr(2), nullptr, false);
        if (!key.is_object() || !desired_key_matches(key, element)) continue;
        const Json* live_element = nullptr;
        for (const auto& item : live)
          if (key_matches(key, item)) live_element = &item;
        if (live_element == nullptr || !match_value(element, owned[name], *live_element)) return false;
      } else {
        return false;  // i: (positional) or unknown: not certain
      }
      owned_keys.erase(name);
      found = true;
      break;
    }
    if (!found) return false;
  }
  return owned_keys.empty();
}

bool owns_children(const Json& owned) {
  if (!owned.is_object()) return false;
  for (const auto& [name, child] : owned.items())
    if (name != ".") return true;
  return false;
}

bool match_value(const Json& desired, const Json& owned, const Json& live) {
  if (desired.is_object()) {
    // A leaf entry for a map is an atomic struct (a LabelSelector, say): SSA replaces it whole.
    if (!owns_children(owned)) return desired == live;
    return match_map(desired, owned, live, false);
  }
  if (desired.is_array()) return match_list(desired, owned, live);
  if (desired.is_null()) return false;  // null in an apply means "remove": not certain
  return values_equal(desired, live);
}

}  // namespace

std::optional<Json> applied_fields(const Json& live, const std::string& manager) {
  if (!live.contains("metadata") || !live["metadata"].contains("managedFields")) return std::nullopt;
  for (const auto& entry : live["metadata"]["managedFields"]) {
    if (entry.value("manager", "") != manager || entry.value("operation", "") != "Apply") continue;
    if (!entry.value("subresource", "").empty()) continue;
    if (entry.value("fieldsType", "") != "FieldsV1" || !entry.contains("fieldsV1")) return std::nullopt;
    return entry["fieldsV1"];
  }
  return std::nullopt;
}

bool apply_is_noop(const Json& desired, const Json& live, const std::string& manager) {
  auto owned = applied_fields(live, manager);
  if (!owned || !desired.is_object() || !live.is_object()) return false;
  if (desired.value("apiVersion", "") != live.value("apiVersion", "")) return false;
  std::set<std::string> owned_top;
  for (const auto& [name, child] : owned->items()) owned_top.insert(name);
  for (const auto& [field, value] : desired.items()) {
    if (field == "apiVersion" || field == "kind") continue;
    std::string owned_name = "f:" + field;
    if (field == "metadata") {
      Json trimmed = value;
      trimmed.erase("name");
      trimmed.erase("namespace");
      if (trimmed.empty()) continue;
      if (!owned_top.erase(owned_name) || !live.contains(field)) return false;
      if (!match_metadata(value, (*owned)[owned_name], live[field])) return false;
      continue;
    }
    if (!owned_top.erase(owned_name) || !live.contains(field)) return false;
    if (!match_value(value, (*owned)[owned_name], live[field])) return false;
  }
  return owned_top.empty();
}

}  // namespace opctl::diff
