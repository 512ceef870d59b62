#include "diff/ignore_rules.hpp"

#include <algorithm>

#include "diff/field_ownership.hpp"

namespace opctl::diff {
namespace {

// A pointer that is malformed (opctl.yaml only checks the leading "/") or
// names nothing removes nothing.
void remove_field(model::Json& object, const std::string& pointer_text) {
  try {
    model::Json::json_pointer pointer(pointer_text);
    if (pointer.empty() || !object.contains(pointer)) return;
    auto& container = object.at(pointer.parent_pointer());
    if (container.is_object()) {
      container.erase(pointer.back());
    } else if (container.is_array()) {
      container.erase(static_cast<std::size_t>(std::stoul(pointer.back())));
    }
  } catch (const model::Json::exception&) {
  } catch (const std::logic_error&) {  // std::stoul
  }
}

std::vector<std::string> tokens_of(model::Json::json_pointer pointer) {
  std::vector<std::string> tokens;
  for (; !pointer.empty(); pointer.pop_back())
    tokens.insert(tokens.begin(), pointer.back());
  return tokens;
}

// Whether the FieldsV1 tree holds the field; only object fields ("f:name")
// are followed, so a pointer into a list is never owned.
bool owns(const std::optional<model::Json>& fields, const model::Json::json_pointer& pointer) {
  if (!fields) return false;
  const model::Json* node = &*fields;
  for (const auto& token : tokens_of(pointer)) {
    auto found = node->find("f:" + token);
    if (found == node->end()) return false;
    node = &*found;
  }
  return true;
}

bool passes_through_list(const model::Json& object, const model::Json::json_pointer& pointer) {
  const model::Json* node = &object;
  for (const auto& token : tokens_of(pointer.parent_pointer())) {
    if (node->is_array()) return true;
    if (!node->is_object()) return false;
    auto found = node->find(token);
    if (found == node->end()) return false;
    node = &*found;
  }
  return node->is_array();
}

}  // namespace

bool IgnoreRule::matches(const model::ObjectKey& key) const {
  if (group != "*" && group != key.group) return false;
  if (!kind.empty() && kind != "*" && kind != key.kind) return false;
  if (!namespace_name.empty() && namespace_name != key.namespace_name) return false;
  return name.empty() || name == key.name;
}

void remove_ignored_fields(model::Json& object, const model::ObjectKey& key,
                           const std::vector<IgnoreRule>& rules) {
  if (!object.is_object()) return;
  for (const auto& rule : rules) {
    if (!rule.matches(key)) continue;
    for (const auto& pointer_text : rule.json_pointers)
      remove_field(object, pointer_text);
  }
}

bool any_rule_matches(const std::vector<IgnoreRule>& rules, const model::ObjectKey& key) {
  return std::any_of(rules.begin(), rules.end(),
                     [&key](const IgnoreRule& rule) { return rule.matches(key); });
}

void keep_live_values_of_ignored_fields(model::Json& desired, const model::Json& live,
                                        const model::ObjectKey& key, const std::vector<IgnoreRule>& rules,
                                        const std::string& manager) {
  if (!desired.is_object() || !live.is_object()) return;
  std::optional<model::Json> owned = applied_fields(live, manager);
  for (const auto& rule : rules) {
    if (!rule.matches(key)) continue;
    for (const auto& pointer_text : rule.json_pointers) {
      model::Json::json_pointer pointer;
      try {
        pointer = model::Json::json_pointer(pointer_text);
      } catch (const model::Json::exception&) {
        continue;  // opctl.yaml reports malformed pointers; here they name nothing
      }
      // Inside a list, ownership is keyed by the element (k:{...}), which a
      // JSON pointer's index cannot name: such fields are applied as desired.
      if (pointer.empty() || passes_through_list(live, pointer) || passes_through_list(desired, pointer))
        continue;
      if (!live.contains(pointer) || !owns(owned, pointer)) {
        remove_field(desired, pointer_text);
        continue;
      }
      model::Json* container = &desired;
      for (const auto& token : tokens_of(pointer.parent_pointer())) {
        if (!container->is_object() && !container->is_null()) break;
        container = &(*container)[token];
      }
      if (!container->is_object() && !container->is_null()) continue;  // desired has a scalar there
      (*container)[pointer.back()] = live.at(pointer);
    }
  }
}

}  // namespace opctl::diff
