#include "diff/secret_masking.hpp"

#include <algorithm>
#include <set>

#include "model/base64.hpp"

namespace opctl::diff {
namespace {

using model::Json;

constexpr std::string_view k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void mask_field(Json& before, Json& after, const char* field) {
  Json* before_map =
      before.is_object() && before.contains(field) && before[field].is_object() ? &before[field] : nullptr;
  Json* after_map =
      after.is_object() && after.contains(field) && after[field].is_object() ? &after[field] : nullptr;
  std::set<std::string> keys;
  for (Json* map : {before_map, after_map})
    if (map != nullptr)
      for (const auto& [key, value] : map->items())
        keys.insert(key);
  for (const auto& key : keys) {
    bool in_before = before_map != nullptr && before_map->contains(key);
    bool in_after = after_map != nullptr && after_map->contains(key);
    bool changed = !in_before || !in_after || (*before_map)[key] != (*after_map)[key];
    if (in_before) (*before_map)[key] = changed ? k_masked_before : k_masked;
    if (in_after) (*after_map)[key] = changed ? k_masked_after : k_masked;
  }
}

}  // namespace

bool is_secret(const Json& object) {
  return object.is_object() && object.value("kind", "") == "Secret" && object.value("apiVersion", "") == "v1";
}

Json fold_string_data(Json object) {
  if (!is_secret(object) || !object.contains("stringData")) return object;
  Json string_data = std::move(object["stringData"]);
  object.erase("stringData");
  if (!string_data.is_object()) return object;
  if (!object.contains("data") || !object["data"].is_object()) object["data"] = Json::object();
  for (const auto& [key, value] : string_data.items())
    object["data"][key] = model::base64_encode(value.is_string() ? value.get<std::string>() : value.dump());
  return object;
}

// Kept here rather than shared with kube/ so that diff/ stays a pure library
// depending on model/ only.

void mask_secret_pair(Json& before, Json& after) {
  if (!is_secret(before) && !is_secret(after)) return;
  mask_field(before, after, "data");
  mask_field(before, after, "stringData");
}

}  // namespace opctl::diff
