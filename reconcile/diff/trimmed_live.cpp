#include "diff/trimmed_live.hpp"

#include "diff/field_ownership.hpp"
#include "diff/secret_masking.hpp"

namespace opctl::diff {
namespace {

using model::Json;

// What a pass reads of the metadata besides the owned fields: identity, the
// version an apply's answer is compared with, the set's labels, opctl.io/
// annotations (source, wave, prune) and whether the object is going.
constexpr const char* k_kept_metadata[] = {"name",       "namespace", "uid",         "resourceVersion",
                                           "generation", "labels",    "annotations", "deletionTimestamp"};

std::vector<std::string> entries_naming(const Json& element, const Json& owned) {
  std::vector<std::string> names;
  for (const auto& [name, child] : owned.items())
    if (entry_names(name, element)) names.push_back(name);
  return names;
}

Json owned_subtree(const Json& value, const Json& owned);

// An element no entry names is never looked at: the fast path finds owned
// elements by their entry, in live order. A keyed element keeps its key
// fields as live has them (the fast path matches them) and its owned fields.
Json owned_elements(const Json& list, const Json& owned) {
  Json out = Json::array();
  for (const auto& element : list) {
    auto names = entries_naming(element, owned);
    if (names.empty()) continue;
    if (names.size() > 1 || !names.front().starts_with("k:")) {
      out.push_back(element);
      continue;
    }
    Json kept = owned_subtree(element, owned[names.front()]);
    Json key = Json::parse(names.front().substr(2), nullptr, false);
    if (kept.is_object() && key.is_object())
      for (const auto& [field, value] : key.items())
        if (element.contains(field)) kept[field] = element[field];
    out.push_back(std::move(kept));
  }
  return out;
}

// A leaf of the FieldsV1 tree (a scalar, an atomic list or struct) is kept whole.
Json owned_subtree(const Json& value, const Json& owned) {
  if (!owns_children(owned)) return value;
  if (value.is_array()) return owned_elements(value, owned);
  if (!value.is_object()) return value;
  Json out = Json::object();
  for (const auto& [name, child] : owned.items()) {
    if (!name.starts_with("f:")) continue;
    auto found = value.find(name.substr(2));
    if (found != value.end()) out[found.key()] = owned_subtree(*found, child);
  }
  return out;
}

// The manager's entries, each FieldsV1 tree as its JSON text (applied_fields
// reads either): as a tree, every field it names costs a map node and an
// empty map, more than all the values it owns.
Json managed_fields_of(const Json& metadata, const std::string& manager) {
  Json kept = Json::array();
  for (const auto& entry : metadata.value("managedFields", Json::array())) {
    if (!entry.is_object() || entry.value("manager", "") != manager) continue;
    kept.push_back(entry);
    if (auto fields = kept.back().find("fieldsV1"); fields != kept.back().end() && fields->is_object())
      *fields = fields->dump();
  }
  return kept;
}

void keep_metadata(const Json& live, const std::string& manager, Json& out) {
  auto metadata = live.find("metadata");
  if (metadata == live.end() || !metadata->is_object()) return;
  Json& kept = out["metadata"];
  for (const char* field : k_kept_metadata)
    if (auto found = metadata->find(field); found != metadata->end()) kept[field] = *found;
  if (metadata->contains("managedFields")) kept["managedFields"] = managed_fields_of(*metadata, manager);
}

// A Secret's stringData lands in data, where the fast path looks for it.
void keep_string_data(const Json& live, const Json& owned, Json& out) {
  auto string_data = owned.find("f:stringData");
  auto data = live.find("data");
  if (string_data == owned.end() || !string_data->is_object() || data == live.end() || !data->is_object())
    return;
  for (const auto& [name, child] : string_data->items()) {
    if (!name.starts_with("f:")) continue;
    if (auto found = data->find(name.substr(2)); found != data->end()) out["data"][found.key()] = *found;
  }
}

// The value at the pointer, or the first list or scalar on its way there
// whole: whether the path passes through a list decides how an ignored
// field is sent back.
void keep_value_at(const Json& live, const std::string& pointer_text, Json& out) {
  Json::json_pointer pointer;
  try {
    pointer = Json::json_pointer(pointer_text);
  } catch (const Json::exception&) {
    return;
  }
  if (pointer.empty()) return;
  std::vector<std::string> tokens;
  for (; !pointer.empty(); pointer.pop_back())
    tokens.insert(tokens.begin(), pointer.back());
  const Json* node = &live;
  Json* target = &out;
  for (const auto& token : tokens) {
    if (!node->is_object()) break;
    auto found = node->find(token);
    if (found == node->end()) return;
    node = &*found;
    target = &(*target)[token];
  }
  *target = *node;
}

}  // namespace

Json trim_live(const Json& live, const TrimOptions& options) {
  if (!live.is_object()) return live;
  auto owned = applied_fields(live, options.manager);
  // An entry that owns nothing (an object applied with its name alone) has nothing to keep.
  Json out = owned && owns_children(*owned) ? owned_subtree(live, *owned) : Json::object();
  for (const char* field : {"apiVersion", "kind"})
    if (auto found = live.find(field); found != live.end()) out[field] = *found;
  keep_metadata(live, options.manager, out);
  if (owned && is_secret(live)) keep_string_data(live, *owned, out);
  if (options.keep_status && live.contains("status")) out["status"] = live["status"];
  for (const auto& pointer : options.ignored_pointers)
    keep_value_at(live, pointer, out);
  return out;
}

}  // namespace opctl::diff
