#include "validate/schema_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "validate/messages.hpp"
#include "validate/value_formats.hpp"

namespace opctl::validate {
namespace {

using model::Json;

constexpr std::string_view k_quantity_ref =
    "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity";
// $ref chains longer than this are cycles (a value's depth bounds real recursion).
constexpr int k_max_ref_depth = 64;

// A schema together with everything it includes through $ref and allOf.
struct SchemaView {
  std::vector<const Json*> parts;
  bool quantity = false;

  bool flag(const char* name) const {
    for (const Json* part : parts)
      if (auto found = part->find(name); found != part->end() && *found == true) return true;
    return false;
  }
  const Json* first(const char* name) const {
    for (const Json* part : parts)
      if (auto found = part->find(name); found != part->end()) return &*found;
    return nullptr;
  }
  std::string text(const char* name) const {
    const Json* value = first(name);
    return value != nullptr && value->is_string() ? value->get<std::string>() : "";
  }
};

bool has_type(const Json& value, const std::string& type) {
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  return true;  // a type this checker does not know: assume the server accepts it
}

std::string type_phrase(const std::string& type) {
  if (type == "integer") return "an integer";
  if (type == "object") return "an object";
  if (type == "array") return "a list";
  if (type == "boolean") return "a boolean (true or false)";
  return "a " + type;
}

std::string type_mismatch(const std::string& type, const Json& value) {
  std::string message = fmt::format("must be {}, not {}", type_phrase(type), describe_value(value));
  if (type == "string" && (value.is_number() || value.is_boolean())) message += " (quote it)";
  if ((type == "integer" || type == "number") && value.is_string() &&
      Json::accept(value.get<std::string>()) && Json::parse(value.get<std::string>()).is_number())
    message += " (remove the quotes)";
  return message;
}

// Alternatives like Quantity's [{type: string}, {type: number}].
bool are_bare_types(const Json& alternatives) {
  for (const auto& alternative : alternatives)
    if (!alternative.is_object() || alternative.size() != 1 || !alternative.contains("type") ||
        !alternative["type"].is_string())
      return false;
  return true;
}

std::string no_alternative_matched(const Json& alternatives, const Json& value) {
  if (!are_bare_types(alternatives)) return "matches none of the allowed forms (oneOf/anyOf)";
  std::vector<std::string> types;
  for (const auto& alternative : alternatives)
    types.push_back(type_phrase(alternative["type"].get<std::string>()));
  return fmt::format("must be {}, not {}", fmt::join(types, " or "), describe_value(value));
}

std::string quoted_list(const Json& values) {
  std::vector<std::string> shown;
  for (const auto& value : values)
    shown.push_back(value.dump());
  return fmt::format("{}", fmt::join(shown, ", "));
}

std::size_t code_points(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

class Checker {
 public:
  Checker(const OpenApiDocument& document, std::vector<Violation>& out) : document_(document), out_(out) {}

  void check(const Json& value, const Json& schema, const FieldPath& path) {
    if (value.is_null()) return;  // absent; `required` decides whether that is allowed
    SchemaView view = view_of(schema);
    if (view.flag("x-kubernetes-int-or-string") || view.text("format") == "int-or-string") {
      if (!value.is_number_integer() && !value.is_string())
        report(path, fmt::format("must be an integer or a string, not {}", describe_value(value)));
      return;
    }
    std::string type = view.text("type");
    if (!type.empty() && !has_type(value, type)) {
      report(path, type_mismatch(type, value));
      return;
    }
    check_enum(view, value, path);
    check_alternatives(view, value, path);
    check_format(view, value, path);
    check_bounds(view, value, path);
    if (value.is_object()) check_object(view, value, path);
    if (value.is_array()) check_array(view, value, path);
  }

 private:
  SchemaView view_of(const Json& schema) const {
    SchemaView view;
    collect(schema, view, 0);
    return view;
  }

  void collect(const Json& schema, SchemaView& view, int depth) const {
    if (!schema.is_object() || depth > k_max_ref_depth) return;
    view.parts.push_back(&schema);
    if (auto ref = schema.find("$ref"); ref != schema.end() && ref->is_string()) {
      if (*ref == k_quantity_ref) view.quantity = true;
      if (const Json* target = document_.resolve(ref->get<std::string>())) collect(*target, view, depth + 1);
    }
    if (auto all_of = schema.find("allOf"); all_of != schema.end() && all_of->is_array())
      for (const auto& part : *all_of)
        collect(part, view, depth + 1);
  }

  void check_enum(const SchemaView& view, const Json& value, const FieldPath& path) {
    for (const Json* part : view.parts) {
      auto allowed = part->find("enum");
      if (allowed == part->end() || !allowed->is_array() || allowed->empty()) continue;
      if (std::find(allowed->begin(), allowed->end(), value) == allowed->end())
        report(path,
               fmt::format("unsupported value {}: must be one of {}", value.dump(), quoted_list(*allowed)));
    }
  }

  void check_alternatives(const SchemaView& view, const Json& value, const FieldPath& path) {
    for (const Json* part : view.parts) {
      for (const char* keyword : {"oneOf", "anyOf"}) {
        auto alternatives = part->find(keyword);
        if (alternatives == part->end() || !alternatives->is_array() || alternatives->empty()) continue;
        std::size_t matches = 0;
        for (const auto& alternative : *alternatives) {
          std::vector<Violation> scratch;
          Checker(document_, scratch).check(value, alternative, path);
          // A pattern that could not be checked does not count against an alternative.
          if (std::all_of(scratch.begin(), scratch.end(), [](const Violation& v) { return v.warning; }))
            ++matches;
        }
        if (matches == 0) report(path, no_alternative_matched(*alternatives, value));
        if (matches > 1 && std::string_view(keyword) == "oneOf" && !are_bare_types(*alternatives))
          report(path, "matches more than one of the allowed forms (oneOf)");
      }
    }
  }

  void check_format(const SchemaView& view, const Json& value, const FieldPath& path) {
    if (auto problem = format_problem(view.text("format"), value)) report(path, *problem);
    if (view.quantity && value.is_string() && !is_quantity(value.get<std::string>()))
      report(path,
             fmt::format("\"{}\" is not a quantity (like 500m, 64Mi, 1.5, 2)", value.get<std::string>()));
  }

  // The limits CRD schemas use (built-in schemas have none).
  void check_bounds(const SchemaView& view, const Json& value, const FieldPath& path) {
    if (value.is_number()) {
      double number = value.get<double>();
      if (const Json* minimum = view.first("minimum"); minimum && minimum->is_number()) {
        bool exclusive = view.flag("exclusiveMinimum");
        if (exclusive ? number <= minimum->get<double>() : number < minimum->get<double>())
          report(path, fmt::format("{} is less than the minimum {}{}", value.dump(), minimum->dump(),
                                   exclusive ? " (exclusive)" : ""));
      }
      if (const Json* maximum = view.first("maximum"); maximum && maximum->is_number()) {
        bool exclusive = view.flag("exclusiveMaximum");
        if (exclusive ? number >= maximum->get<double>() : number > maximum->get<double>())
          report(path, fmt::format("{} is more than the maximum {}{}", value.dump(), maximum->dump(),
                                   exclusive ? " (exclusive)" : ""));
      }
    }
    if (value.is_string()) {
      std::size_t length = code_points(value.get_ref<const std::string&>());
      check_count(view, "minLength", "maxLength", length, "characters", path);
      if (const Json* pattern = view.first("pattern"); pattern && pattern->is_string())
        check_pattern(pattern->get<std::string>(), value.get_ref<const std::string&>(), path);
    }
    if (value.is_array()) check_count(view, "minItems", "maxItems", value.size(), "items", path);
    if (value.is_object()) check_count(view, "minProperties", "maxProperties", value.size(), "fields", path);
  }

  // As the API server's Go regexp: RE2 syntax, matched anywhere in the value.
  void check_pattern(const std::string& pattern, const std::string& text, const FieldPath& path) {
    std::string error;
    const model::GoPattern* compiled = document_.pattern(pattern, error);
    if (compiled == nullptr) {
      out_.push_back({path,
                      fmt::format("not checked against the schema's pattern {}: RE2 cannot compile it ({})",
                                  pattern, error),
                      true});
    } else if (!compiled->search(text)) {
      report(path, fmt::format("\"{}\" does not match the pattern {}", text, pattern));
    }
  }

  void check_count(const SchemaView& view, const char* min_keyword, const char* max_keyword,
                   std::size_t count, const char* unit, const FieldPath& path) {
    auto limit = [&](const char* keyword) -> std::optional<std::size_t> {
      const Json* found = view.first(keyword);
      if (found == nullptr || !found->is_number_integer() || found->get<long long>() < 0) return std::nullopt;
      return found->get<std::size_t>();
    };
    if (auto minimum = limit(min_keyword); minimum && count < *minimum)
      report(path, fmt::format("has {} {}, fewer than the minimum {}", count, unit, *minimum));
    if (auto maximum = limit(max_keyword); maximum && count > *maximum)
      report(path, fmt::format("has {} {}, more than the maximum {}", count, unit, *maximum));
  }

  void check_object(const SchemaView& view, const Json& value, const FieldPath& path) {
    std::map<std::string, std::vector<const Json*>> properties;
    for (const Json* part : view.parts)
      if (auto found = part->find("properties"); found != part->end() && found->is_object())
        for (const auto& [name, schema] : found->items())
          properties[name].push_back(&schema);
    const Json* additional = view.first("additionalProperties");
    bool open = view.flag("x-kubernetes-preserve-unknown-fields") || (additional && *additional == true);
    bool closed = !open && (!properties.empty() || (additional && *additional == false));
    bool embedded = view.flag("x-kubernetes-embedded-resource");
    for (const auto& [key, child] : value.items()) {
      if (auto found = properties.find(key); found != properties.end()) {
        for (const Json* schema : found->second)
          check(child, *schema, path.child(key));
      } else if (additional && additional->is_object()) {
        check(child, *additional, path.child(key));
      } else if (closed && !(embedded && (key == "apiVersion" || key == "kind" || key == "metadata"))) {
        std::vector<std::string> names;
        for (const auto& entry : properties)
          names.push_back(entry.first);
        report(path.child(key), "unknown field" + did_you_mean(key, names));
      }
    }
    check_required(view, properties, value, path);
  }

  void check_required(const SchemaView& view,
                      const std::map<std::string, std::vector<const Json*>>& properties, const Json& value,
                      const FieldPath& path) {
    std::set<std::string> seen;
    for (const Json* part : view.parts) {
      auto required = part->find("required");
      if (required == part->end() || !required->is_array()) continue;
      for (const auto& entry : *required) {
        if (!entry.is_string() || !seen.insert(entry.get<std::string>()).second) continue;
        const std::string& name = entry.get_ref<const std::string&>();
        auto present = value.find(name);
        if (present != value.end() && (!present->is_null() || nullable(properties, name))) continue;
        report(path.child(name), fmt::format("missing required field \"{}\"", name));
      }
    }
  }

  bool nullable(const std::map<std::string, std::vector<const Json*>>& properties,
                const std::string& name) const {
    auto found = properties.find(name);
    if (found == properties.end()) return false;
    for (const Json* schema : found->second)
      if (view_of(*schema).flag("nullable")) return true;
    return false;
  }

  void check_array(const SchemaView& view, const Json& value, const FieldPath& path) {
    const Json* items = view.first("items");
    if (items != nullptr && items->is_object())
      for (std::size_t i = 0; i < value.size(); ++i)
        check(value[i], *items, path.index(i));
    std::string list_type = view.text("x-kubernetes-list-type");
    if (list_type == "map" && items != nullptr) check_map_keys(view, view_of(*items), value, path);
    if (list_type == "set") check_set(value, path);
  }

  // Server-side apply merges a `map` list by its keys and rejects duplicates.
  void check_map_keys(const SchemaView& view, const SchemaView& item_view, const Json& value,
                      const FieldPath& path) {
    const Json* keys = view.first("x-kubernetes-list-map-keys");
    if (keys == nullptr || !keys->is_array() || keys->empty()) return;
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
      auto key = map_key(*keys, item_view, value[i]);
      if (key.empty()) continue;
      auto [first, inserted] = seen.emplace(key, i);
      if (!inserted)
        report(path.index(i),
               fmt::format("duplicate entry with {} (the same key as {}[{}]; server-side apply "
                           "rejects it)",
                           key, path.field, first->second));
    }
  }

  // "name=\"web\"", or empty when the item lacks a key field (and its default).
  std::string map_key(const Json& keys, const SchemaView& item_view, const Json& item) const {
    if (!item.is_object()) return "";
    std::vector<std::string> parts;
    for (const auto& key : keys) {
      if (!key.is_string()) return "";
      const std::string& name = key.get_ref<const std::string&>();
      const Json* field =
          item.contains(name) && !item[name].is_null() ? &item[name] : default_of(item_view, name);
      if (field == nullptr) return "";
      parts.push_back(fmt::format("{}={}", name, field->dump()));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
  }

  const Json* default_of(const SchemaView& item_view, const std::string& name) const {
    for (const Json* part : item_view.parts) {
      auto properties = part->find("properties");
      if (properties == part->end() || !properties->is_object() || !properties->contains(name)) continue;
      SchemaView property = view_of((*properties)[name]);
      if (const Json* fallback = property.first("default")) return fallback;
    }
    return nullptr;
  }

  void check_set(const Json& value, const FieldPath& path) {
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (value[i].is_object() || value[i].is_array()) continue;
      auto [first, inserted] = seen.emplace(value[i].dump(), i);
      if (!inserted)
        report(path.index(i),
               fmt::format("duplicate value {} (the same as {}[{}]; server-side apply rejects it)",
                           value[i].dump(), path.field, first->second));
    }
  }

  void report(const FieldPath& path, std::string message) { out_.push_back({path, std::move(message)}); }

  const OpenApiDocument& document_;
  std::vector<Violation>& out_;
};

}  // namespace

std::vector<Violation> check_schema(const Json& value, const Json& schema, const OpenApiDocument& document,
                                    const FieldPath& at) {
  std::vector<Violation> violations;
  Checker(document, violations).check(value, schema, at);
  return violations;
}

}  // namespace opctl::validate
