#include "diff/local_apply.hpp"

#include <vector>

#include "diff/field_ownership.hpp"
#include "diff/secret_masking.hpp"

namespace opctl::diff {
namespace {

using model::Json;
using Keys = std::vector<std::string>;

// The merge keys Kubernetes' built-in types declare, for lists whose
// managedFields entry does not show them (fields opctl does not own yet).
std::vector<Keys> known_merge_keys() {
  return {{"containerPort", "protocol"},
          {"port", "protocol"},
          {"mountPath"},
          {"devicePath"},
          {"ip"},
          {"name"},
          {"type"}};
}

bool has_children(const Json& owned) {
  if (!owned.is_object()) return false;
  for (const auto& [name, child] : owned.items())
    if (name != ".") return true;
  return false;
}

// The ownership subtree of a field; null when there is no information.
Json child(const Json& owned, const std::string& name) {
  return owned.is_object() && owned.contains(name) ? owned[name] : Json();
}

Keys keys_from_owned(const Json& owned) {
  if (!owned.is_object()) return {};
  for (const auto& [name, entry] : owned.items()) {
    if (!name.starts_with("k:")) continue;
    Json key = Json::parse(name.substr(2), nullptr, false);
    Keys fields;
    if (key.is_object())
      for (const auto& [field, value] : key.items())
        fields.push_back(field);
    return fields;
  }
  return {};
}

Keys guess_keys(const Json& list) {
  for (const auto& candidate : known_merge_keys()) {
    bool all_have = !list.empty();
    for (const auto& item : list)
      all_have = all_have && item.is_object() && item.contains(candidate.front());
    if (all_have) return candidate;
  }
  return {};
}

// Whether live element `existing` is the one desired `element` names. A key
// field the desired element leaves out matches its known default, or, with
// none known, anything (a local comparison is a best effort).
bool same_key(const Json& existing, const Json& element, const Keys& keys) {
  if (!existing.is_object() || !element.is_object()) return false;
  for (const auto& field : keys) {
    if (element.contains(field)) {
      if (existing.value(field, Json()) != element[field]) return false;
      continue;
    }
    auto default_value = known_key_default(field);
    if (default_value && existing.contains(field) && existing[field] != Json(*default_value)) return false;
  }
  return true;
}

// The k: entry of `owned` for a live element, or null.
Json owned_element(const Json& owned, const Json& element) {
  if (owned.is_object()) {
    for (const auto& [name, entry] : owned.items()) {
      if (!name.starts_with("k:")) continue;
      Json key = Json::parse(name.substr(2), nullptr, false);
      bool matches = key.is_object() && element.is_object();
      for (const auto& [field, value] : key.items())
        matches = matches && element.value(field, Json()) == value;
      if (matches) return entry;
    }
  }
  return Json();
}

// Removes what `owned` names from a value the apply no longer gives: a field
// goes whole unless it has parts (map fields, list elements) others may own;
// a map or list left empty goes too.
void drop_owned(Json& value, const Json& owned) {
  if (value.is_object()) {
    for (const auto& [name, entry] : owned.items()) {
      std::string field = name.substr(2);
      if (!name.starts_with("f:") || !value.contains(field)) continue;
      if (has_children(entry) && value[field].is_structured()) {
        drop_owned(value[field], entry);
        if (!value[field].empty()) continue;
      }
      value.erase(field);
    }
  } else if (value.is_array()) {
    Json kept = Json::array();
    for (auto& element : value) {
      bool ours = owned.contains("v:" + element.dump()) || !owned_element(owned, element).is_null();
      if (!ours) kept.push_back(std::move(element));
    }
    value = std::move(kept);
  }
}

Json apply_value(const Json& live, const Json& desired, const Json& owned);

// Maps merge field by field; fields this manager owned and no longer applies go.
Json apply_map(const Json& live, const Json& desired, const Json& owned) {
  Json result = live;
  if (owned.is_object()) {
    Json dropped = Json::object();
    for (const auto& [name, entry] : owned.items())
      if (name.starts_with("f:") && !desired.contains(name.substr(2))) dropped[name] = entry;
    drop_owned(result, dropped);
  }
  for (const auto& [field, value] : desired.items()) {
    if (value.is_null()) {
      result.erase(field);
      continue;
    }
    result[field] =
        apply_value(live.contains(field) ? live[field] : Json(), value, child(owned, "f:" + field));
  }
  return result;
}

// Associative lists merge by key. Desired elements come in desired order;
// elements another manager added stay before the live element they preceded;
// those this manager owned and dropped go.
Json apply_keyed_list(const Json& live, const Json& desired, const Json& owned, const Keys& keys) {
  std::vector<int> match(desired.size(), -1);
  std::vector<bool> taken(live.size(), false);
  for (std::size_t d = 0; d < desired.size(); ++d)
    for (std::size_t l = 0; l < live.size() && match[d] < 0; ++l)
      if (!taken[l] && same_key(live[l], desired[d], keys)) match[d] = static_cast<int>(l), taken[l] = true;
  // Others' elements, grouped by the next live element that stays in desired.
  std::vector<Json> pending(live.size() + 1, Json::array());
  Json carried = Json::array();
  for (std::size_t l = 0; l < live.size(); ++l) {
    if (taken[l]) {
      pending[l] = std::move(carried);
      carried = Json::array();
    } else if (owned_element(owned, live[l]).is_null()) {
      carried.push_back(live[l]);
    }
  }
  Json merged = Json::array();
  for (std::size_t d = 0; d < desired.size(); ++d) {
    if (match[d] < 0) {
      merged.push_back(desired[d]);
      continue;
    }
    const Json& existing = live[match[d]];
    for (auto& other : pending[match[d]])
      merged.push_back(std::move(other));
    merged.push_back(apply_value(existing, desired[d], owned_element(owned, existing)));
  }
  for (auto& other : carried)
    merged.push_back(std::move(other));
  return merged;
}

// Set lists (v:) keep others' values and drop the ones this manager gave up.
Json apply_set_list(const Json& live, const Json& desired, const Json& owned) {
  Json merged = desired;
  for (const auto& value : live) {
    bool wanted = false;
    for (const auto& element : desired)
      wanted = wanted || element == value;
    if (!wanted && !(owned.is_object() && owned.contains("v:" + value.dump()))) merged.push_back(value);
  }
  return merged;
}

Json apply_list(const Json& live, const Json& desired, const Json& owned) {
  if (!live.is_array()) return desired;
  bool known = !owned.is_null();
  if (known && !has_children(owned)) return desired;  // atomic: replaced whole
  Keys keys = keys_from_owned(owned);
  if (!keys.empty()) return apply_keyed_list(live, desired, owned, keys);
  if (known) return apply_set_list(live, desired, owned);
  keys = guess_keys(desired);
  return keys.empty() ? desired : apply_keyed_list(live, desired, owned, keys);
}

Json apply_value(const Json& live, const Json& desired, const Json& owned) {
  if (desired.is_array()) return apply_list(live, desired, owned);
  if (!desired.is_object() || !live.is_object()) return desired;
  // A map this manager owns as a leaf is an atomic struct (a LabelSelector): replaced whole.
  if (!owned.is_null() && !has_children(owned)) return desired;
  return apply_map(live, desired, owned);
}

}  // namespace

Json local_apply(const Json& live, const Json& desired, const std::string& manager) {
  Json owned = applied_fields(live, manager).value_or(Json::object());
  return fold_string_data(apply_map(live, desired, owned));
}

}  // namespace opctl::diff
