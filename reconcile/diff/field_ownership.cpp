#include "diff/field_ownership.hpp"

#include <set>

#include "diff/secret_masking.hpp"
#include "model/base64.hpp"

namespace opctl::diff {
namespace {

using model::Json;

// How sure the comparison may be about what the server fills in: only
// built-in kinds have defaults for list keys we know without a schema.
struct MatchContext {
  bool built_in = false;
};

bool values_equal(const Json& desired, const Json& live) {
  if (desired.is_number() && live.is_number()) return desired.get<double>() == live.get<double>();
  return desired == live;
}

std::set<std::string> child_names(const Json& owned) {
  std::set<std::string> names;
  if (owned.is_object())
    for (const auto& [name, child] : owned.items())
      if (name != ".") names.insert(name);
  return names;
}

// A k:{...} key of an associative list element matches `element` when every
// key field has the same value.
bool key_matches(const Json& key, const Json& element) {
  if (!element.is_object()) return false;
  for (const auto& [field, value] : key.items())
    if (!element.contains(field) || !values_equal(value, element[field])) return false;
  return true;
}

// The same for a desired element, which may leave out a key field the server
// defaults. That is only certain for a default we know (a port's protocol is
// TCP in every built-in type), and the live key must hold exactly it; any
// other missing key field makes the answer uncertain.
bool desired_key_matches(const Json& key, const Json& element, const MatchContext& context) {
  if (!element.is_object()) return false;
  for (const auto& [field, value] : key.items()) {
    if (element.contains(field)) {
      if (!values_equal(value, element[field])) return false;
      continue;
    }
    auto default_value = context.built_in ? known_key_default(field) : std::nullopt;
    if (!default_value || Json(*default_value) != value) return false;
  }
  return true;
}

// The index in `live` of the element a k: or v: entry names, or -1.
int live_index(const std::string& owned_name, const Json& live) {
  for (std::size_t i = 0; i < live.size(); ++i)
    if (entry_names(owned_name, live[i])) return static_cast<int>(i);
  return -1;
}

// The k: or v: entry of `owned_names` a desired element stands for, or "".
std::string owned_entry_for(const Json& element, const std::set<std::string>& owned_names,
                            const MatchContext& context) {
  for (const auto& name : owned_names) {
    Json parsed = Json::parse(name.substr(2), nullptr, false);
    if (name.starts_with("v:") && values_equal(parsed, element)) return name;
    if (name.starts_with("k:") && parsed.is_object() && desired_key_matches(parsed, element, context))
      return name;
  }
  return "";
}

bool match_value(const Json& desired, const Json& owned, const Json& live, const MatchContext& context);

bool match_map(const Json& desired, const Json& owned, const Json& live, const MatchContext& context) {
  if (!live.is_object() || !owned.is_object()) return false;
  std::set<std::string> owned_names = child_names(owned);
  for (const auto& [field, value] : desired.items()) {
    std::string owned_name = "f:" + field;
    if (!owned_names.erase(owned_name)) return false;
    if (!live.contains(field)) return false;
    if (!match_value(value, owned[owned_name], live[field], context)) return false;
  }
  return owned_names.empty();
}

// Associative (k:) and set (v:) lists merge by element, but an apply also
// puts the elements in the order it gives them: so the desired elements must
// be in live, in the same relative order, and be all the elements owned.
bool match_list(const Json& desired, const Json& owned, const Json& live, const MatchContext& context) {
  if (!live.is_array()) return false;
  std::set<std::string> owned_names = child_names(owned);
  if (owned_names.empty()) return desired == live;  // atomic: SSA replaces it whole
  int previous = -1;
  for (const auto& element : desired) {
    std::string name = owned_entry_for(element, owned_names, context);
    if (name.empty()) return false;  // not owned yet, i: (positional) or unknown: not certain
    int index = live_index(name, live);
    if (index <= previous) return false;
    previous = index;
    if (name.starts_with("k:") && !match_value(element, owned[name], live[index], context)) return false;
    owned_names.erase(name);
  }
  return owned_names.empty();
}

bool match_value(const Json& desired, const Json& owned, const Json& live, const MatchContext& context) {
  if (desired.is_object()) {
    // A leaf entry for a map is an atomic struct (a LabelSelector, say): SSA replaces it whole.
    if (child_names(owned).empty()) return desired == live;
    return match_map(desired, owned, live, context);
  }
  if (desired.is_array()) return match_list(desired, owned, live, context);
  if (desired.is_null()) return false;  // null in an apply means "remove": not certain
  return values_equal(desired, live);
}

// Kinds served by Kubernetes itself: core, the dot-less groups (apps, batch)
// and *.k8s.io.
bool is_built_in(const std::string& api_version) {
  auto slash = api_version.find('/');
  if (slash == std::string::npos) return true;
  std::string group = api_version.substr(0, slash);
  return group.find('.') == std::string::npos || group.ends_with(".k8s.io");
}

// A Secret's stringData never shows live: the server writes it into data.
// Its entries are unchanged when opctl owns them and data holds their
// encoding; `desired` and `owned` lose stringData for the rest of the check.
bool match_string_data(Json& desired, Json& owned, const Json& live) {
  if (!desired.contains("stringData")) return true;
  const Json& string_data = desired["stringData"];
  if (!string_data.is_object() || !owned.contains("f:stringData")) return false;
  std::set<std::string> owned_names = child_names(owned["f:stringData"]);
  const Json& data = live.contains("data") && live["data"].is_object() ? live["data"] : Json::object();
  for (const auto& [key, value] : string_data.items()) {
    if (!value.is_string() || !owned_names.erase("f:" + key)) return false;
    if (desired.contains("data") && desired["data"].is_object() && desired["data"].contains(key))
      return false;
    if (!data.contains(key) || data[key] != model::base64_encode(value.get<std::string>())) return false;
  }
  if (!owned_names.empty()) return false;
  desired.erase("stringData");
  owned.erase("f:stringData");
  return true;
}

}  // namespace

bool owns_children(const Json& owned) {
  if (!owned.is_object()) return false;
  for (const auto& [name, child] : owned.items())
    if (name != ".") return true;
  return false;
}

bool entry_names(const std::string& entry, const Json& element) {
  if (!entry.starts_with("k:") && !entry.starts_with("v:")) return false;
  Json parsed = Json::parse(entry.substr(2), nullptr, false);
  if (entry.starts_with("v:")) return values_equal(parsed, element);
  return parsed.is_object() && key_matches(parsed, element);
}

std::optional<std::string> known_key_default(const std::string& field) {
  if (field == "protocol") return "TCP";
  return std::nullopt;
}

std::optional<Json> applied_fields(const Json& live, const std::string& manager) {
  if (!live.contains("metadata") || !live["metadata"].contains("managedFields")) return std::nullopt;
  for (const auto& entry : live["metadata"]["managedFields"]) {
    if (entry.value("manager", "") != manager || entry.value("operation", "") != "Apply") continue;
    if (!entry.value("subresource", "").empty()) continue;
    if (entry.value("fieldsType", "") != "FieldsV1" || !entry.contains("fieldsV1")) return std::nullopt;
    const Json& fields = entry["fieldsV1"];
    if (!fields.is_string()) return fields;
    // A trimmed live object (trimmed_live.hpp) keeps the tree as its JSON text.
    Json parsed = Json::parse(fields.get_ref<const std::string&>(), nullptr, false);
    if (parsed.is_discarded()) return std::nullopt;
    return parsed;
  }
  return std::nullopt;
}

bool apply_is_noop(const Json& desired, const Json& live, const std::string& manager) {
  auto owned = applied_fields(live, manager);
  if (!owned || !owned->is_object() || !desired.is_object() || !live.is_object()) return false;
  if (desired.value("apiVersion", "") != live.value("apiVersion", "")) return false;
  if (desired.value("kind", "") != live.value("kind", "")) return false;
  // apiVersion and kind identify the object's type and metadata.name and
  // .namespace the object: SSA does not list them as owned.
  Json rest = desired;
  rest.erase("apiVersion");
  rest.erase("kind");
  if (rest.contains("metadata") && rest["metadata"].is_object()) {
    rest["metadata"].erase("name");
    rest["metadata"].erase("namespace");
    if (rest["metadata"].empty()) rest.erase("metadata");
  }
  MatchContext context{is_built_in(desired.value("apiVersion", ""))};
  if (is_secret(desired) && !match_string_data(rest, *owned, live)) return false;
  return match_map(rest, *owned, live, context);
}

}  // namespace opctl::diff
