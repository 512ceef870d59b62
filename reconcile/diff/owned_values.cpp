#include "diff/owned_values.hpp"

#include "diff/field_ownership.hpp"

namespace opctl::diff {
namespace {

using model::Json;

// The k: or v: entry of `owned` that names `element`, or "".
std::string entry_for(const Json& element, const Json& owned) {
  for (const auto& [name, child] : owned.items())
    if (entry_names(name, element)) return name;
  return "";
}

Json owned_list(const Json& list, const Json& owned) {
  Json out = Json::array();
  for (const auto& element : list) {
    std::string name = entry_for(element, owned);
    if (name.empty()) continue;
    if (name.starts_with("v:")) {
      out.push_back(element);
      continue;
    }
    // The key fields identify the element in the merge, owned or not.
    Json kept = owned_values(element, owned[name]);
    Json key = Json::parse(name.substr(2));
    for (const auto& [field, value] : key.items())
      kept[field] = value;
    out.push_back(std::move(kept));
  }
  return out;
}

}  // namespace

Json owned_values(const Json& value, const Json& owned) {
  if (!owns_children(owned)) return value;
  if (value.is_array()) return owned_list(value, owned);
  if (!value.is_object()) return value;
  Json out = Json::object();
  for (const auto& [name, child] : owned.items()) {
    if (!name.starts_with("f:")) continue;
    std::string field = name.substr(2);
    if (value.contains(field)) out[field] = owned_values(value[field], child);
  }
  return out;
}

std::optional<Json> owned_part(const Json& live, const std::string& manager) {
  auto owned = applied_fields(live, manager);
  if (!owned) return std::nullopt;
  return owned_values(live, *owned);
}

}  // namespace opctl::diff
