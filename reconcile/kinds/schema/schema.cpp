#include "kinds/schema/schema.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/error.hpp"

namespace opctl::kinds::schema {
namespace {

using model::Json;

const char* type_name(Schema::Type type) {
  switch (type) {
    case Schema::Type::object:
    case Schema::Type::free_form:
      return "object";
    case Schema::Type::string:
      return "string";
    case Schema::Type::integer:
      return "integer";
    case Schema::Type::number:
      return "number";
    case Schema::Type::boolean:
      return "boolean";
    case Schema::Type::array:
      return "array";
  }
  return "object";
}

std::string describe_type(Schema::Type type) {
  switch (type) {
    case Schema::Type::object:
    case Schema::Type::free_form:
      return "a mapping";
    case Schema::Type::string:
      return "a string";
    case Schema::Type::integer:
      return "an integer";
    case Schema::Type::number:
      return "a number";
    case Schema::Type::boolean:
      return "true or false";
    case Schema::Type::array:
      return "a list";
  }
  return "a value";
}

std::string join_child(const std::string& field, const std::string& name) {
  return field.empty() ? name : field + "." + name;
}

// A key as a JSON pointer token (RFC 6901): a nodeSelector key holds '/'.
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key)
    out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

}  // namespace

Schema Schema::array(Schema items) {
  Schema schema(Type::array);
  schema.items_.push_back(std::move(items));
  return schema;
}

Schema Schema::map(Schema values) {
  Schema schema(Type::object);
  schema.values_.push_back(std::move(values));
  return schema;
}

Schema& Schema::describe(std::string text) {
  description_ = std::move(text);
  return *this;
}

Schema& Schema::field(const std::string& name, Schema value, bool required) {
  properties_.emplace_back(name, std::move(value));
  if (required) required_.push_back(name);
  return *this;
}

Schema& Schema::enumerate(std::vector<std::string> values) {
  enum_ = std::move(values);
  return *this;
}

Schema& Schema::minimum(long value) {
  minimum_ = value;
  return *this;
}

Schema& Schema::maximum(long value) {
  maximum_ = value;
  return *this;
}

Schema& Schema::max_length(std::size_t value) {
  max_length_ = value;
  return *this;
}

Schema& Schema::pattern(std::string regex, std::string explanation) {
  std::string error;
  pattern_ = model::GoPattern::compile(regex, error);
  // The kinds' own patterns, published in their CRDs: one RE2 refuses is opctl's bug.
  if (!pattern_)
    throw Error(ErrorCategory::internal,
                fmt::format("the schema pattern {} is not RE2 syntax: {}", regex, error));
  pattern_explanation_ = std::move(explanation);
  return *this;
}

Schema& Schema::default_value(Json value) {
  default_ = std::move(value);
  return *this;
}

Schema& Schema::format(std::string name) {
  format_ = std::move(name);
  return *this;
}

Schema& Schema::exactly_one_of(std::vector<std::string> names) {
  exactly_one_ = std::move(names);
  return *this;
}

Schema& Schema::check(Check custom) {
  checks_.push_back(std::move(custom));
  return *this;
}

Schema& Schema::list_map(std::vector<std::string> keys) {
  list_map_keys_ = std::move(keys);
  return *this;
}

Json Schema::openapi() const {
  Json out = {{"type", type_name(type_)}};
  if (!description_.empty()) out["description"] = description_;
  if (type_ == Type::free_form) out["x-kubernetes-preserve-unknown-fields"] = true;
  if (!properties_.empty()) {
    out["properties"] = Json::object();
    for (const auto& [name, property] : properties_)
      out["properties"][name] = property.openapi();
  }
  if (!required_.empty()) out["required"] = required_;
  if (!items_.empty()) out["items"] = items_.front().openapi();
  if (!values_.empty()) out["additionalProperties"] = values_.front().openapi();
  if (!enum_.empty()) out["enum"] = enum_;
  if (minimum_) out["minimum"] = *minimum_;
  if (maximum_) out["maximum"] = *maximum_;
  if (max_length_) out["maxLength"] = *max_length_;
  if (pattern_) out["pattern"] = pattern_->text();
  if (!default_.is_null()) out["default"] = default_;
  if (!format_.empty()) out["format"] = format_;
  if (!list_map_keys_.empty()) {
    out["x-kubernetes-list-type"] = "map";
    out["x-kubernetes-list-map-keys"] = list_map_keys_;
  }
  if (!exactly_one_.empty()) {
    std::vector<std::string> terms;
    for (const auto& name : exactly_one_)
      terms.push_back(fmt::format("(has(self.{}) ? 1 : 0)", name));
    out["x-kubernetes-validations"] = Json::array(
        {{{"rule", fmt::format("{} == 1", fmt::join(terms, " + "))},
          {"message", fmt::format("exactly one of {} must be set", fmt::join(exactly_one_, ", "))}}});
  }
  return out;
}

bool Schema::type_matches(const Json& value) const {
  switch (type_) {
    case Type::object:
    case Type::free_form:
      return value.is_object();
    case Type::string:
      return value.is_string();
    case Type::integer:
      return value.is_number_integer();
    case Type::number:
      return value.is_number();
    case Type::boolean:
      return value.is_boolean();
    case Type::array:
      return value.is_array();
  }
  return false;
}

void Schema::validate(const Json& value, const std::string& pointer, const std::string& field,
                      std::vector<Issue>& issues) const {
  if (value.is_null()) return;  // the API server decodes null as absent
  if (!type_matches(value)) {
    issues.push_back({pointer, field, "must be " + describe_type(type_)});
    return;
  }
  if (!enum_.empty() && std::find(enum_.begin(), enum_.end(), value.get<std::string>()) == enum_.end())
    issues.push_back(
        {pointer, field,
         fmt::format("\"{}\" is not one of {}", value.get<std::string>(), fmt::join(enum_, ", "))});
  if (minimum_ && value.is_number() && value.get<double>() < static_cast<double>(*minimum_))
    issues.push_back({pointer, field, fmt::format("must be at least {}", *minimum_)});
  if (maximum_ && value.is_number() && value.get<double>() > static_cast<double>(*maximum_))
    issues.push_back({pointer, field, fmt::format("must be at most {}", *maximum_)});
  if (max_length_ && value.is_string() && value.get<std::string>().size() > *max_length_)
    issues.push_back({pointer, field, fmt::format("must be at most {} characters", *max_length_)});
  if (pattern_ && value.is_string() && !pattern_->search(value.get<std::string>()))
    issues.push_back(
        {pointer, field, fmt::format("\"{}\" is not {}", value.get<std::string>(), pattern_explanation_)});
  if (type_ == Type::object) validate_object(value, pointer, field, issues);
  if (type_ == Type::array)
    for (std::size_t i = 0; i < value.size(); ++i)
      items_.front().validate(value[i], fmt::format("{}/{}", pointer, i), fmt::format("{}[{}]", field, i),
                              issues);
  for (const auto& custom : checks_)
    if (std::string message = custom(value); !message.empty()) issues.push_back({pointer, field, message});
}

void Schema::validate_object(const Json& value, const std::string& pointer, const std::string& field,
                             std::vector<Issue>& issues) const {
  for (const auto& [key, child] : value.items()) {
    if (!values_.empty()) {
      values_.front().validate(child, pointer + "/" + pointer_token(key), join_child(field, key), issues);
      continue;
    }
    auto found =
        std::find_if(properties_.begin(), properties_.end(), [&](const auto& p) { return p.first == key; });
    if (found == properties_.end()) {
      std::vector<std::string> known;
      for (const auto& property : properties_)
        known.push_back(property.first);
      issues.push_back({pointer + "/" + key, join_child(field, key),
                        fmt::format("unknown field \"{}\" (known: {})", key, fmt::join(known, ", "))});
      continue;
    }
    found->second.validate(child, pointer + "/" + key, join_child(field, key), issues);
  }
  for (const auto& name : required_)
    if (!value.contains(name) || value[name].is_null())
      issues.push_back({pointer, join_child(field, name), "missing required field"});
  if (!exactly_one_.empty()) {
    auto set = std::count_if(exactly_one_.begin(), exactly_one_.end(), [&](const std::string& name) {
      return value.contains(name) && !value[name].is_null();
    });
    if (set != 1)
      issues.push_back(
          {pointer, field, fmt::format("exactly one of {} must be set", fmt::join(exactly_one_, ", "))});
  }
}

Json custom_resource_definition(const CrdNames& names, const Schema& spec, const Schema& status,
                                const std::vector<PrinterColumn>& columns) {
  Json root = {{"type", "object"},
               {"properties",
                {{"apiVersion", {{"type", "string"}}},
                 {"kind", {{"type", "string"}}},
                 {"metadata", {{"type", "object"}}},
                 {"spec", spec.openapi()},
                 {"status", status.openapi()}}},
               {"required", {"spec"}}};
  Json printer = Json::array();
  for (const auto& column : columns) {
    Json entry = {{"name", column.name}, {"type", column.type}, {"jsonPath", column.json_path}};
    if (!column.description.empty()) entry["description"] = column.description;
    if (column.priority != 0) entry["priority"] = column.priority;
    printer.push_back(std::move(entry));
  }
  Json version = {{"name", names.version},
                  {"served", true},
                  {"storage", true},
                  {"subresources", {{"status", Json::object()}}},
                  {"additionalPrinterColumns", printer},
                  {"schema", {{"openAPIV3Schema", root}}}};
  Json crd_names = {{"kind", names.kind},
                    {"listKind", names.kind + "List"},
                    {"plural", names.plural},
                    {"singular", names.singular}};
  if (!names.short_names.empty()) crd_names["shortNames"] = names.short_names;
  if (!names.categories.empty()) crd_names["categories"] = names.categories;
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", names.plural + "." + names.group}}},
          {"spec",
           {{"group", names.group},
            {"names", crd_names},
            {"scope", "Namespaced"},
            {"versions", Json::array({version})}}}};
}

Schema conditions_schema() {
  auto condition = Schema::object()
                       .field("type", Schema::string().describe("Ready, Progressing or Degraded"), true)
                       .field("status", Schema::string().enumerate({"True", "False", "Unknown"}), true)
                       .field("reason", Schema::string())
                       .field("message", Schema::string())
                       .field("lastTransitionTime", Schema::string().format("date-time"))
                       .field("observedGeneration", Schema::integer());
  return Schema::array(std::move(condition))
      .list_map({"type"})
      .describe("Standard conditions: Ready, Progressing, Degraded");
}

}  // namespace opctl::kinds::schema
