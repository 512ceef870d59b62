#include "diff/ignore_rules.hpp"

namespace opctl::diff {

bool IgnoreRule::matches(const model::ObjectKey& key) const {
  if (group != "*" && group != key.group) return false;
  if (!kind.empty() && kind != "*" && kind != key.kind) return false;
  if (!namespace_name.empty() && namespace_name != key.namespace_name) return false;
  return name.empty() || name == key.name;
}

void remove_ignored_fields(model::Json& object, const model::ObjectKey& key, const std::vector<IgnoreRule>& rules) {
  if (!object.is_object()) return;
  for (const auto& rule : rules) {
    if (!rule.matches(key)) continue;
    for (const auto& pointer_text : rule.json_pointers) {
      model::Json::json_pointer pointer(pointer_text);
      if (pointer.empty() || !object.contains(pointer)) continue;
      auto parent = pointer.parent_pointer();
      auto& container = object.at(parent);
      if (container.is_object()) {
        container.erase(pointer.back());
      } else if (container.is_array()) {
        container.erase(static_cast<std::size_t>(std::stoul(pointer.back())));
      }
    }
  }
}

}  // namespace opctl::diff
