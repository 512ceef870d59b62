// A small schema DSL: each custom kind describes its spec and status once,
// and the same description yields the CRD's OpenAPI v3 schema (opctl crds)
// and the offline checks of `opctl validate` (with field paths for file:line).
// Only what the kinds need: types, properties, required, enum, minimum, maximum,
// maxLength, pattern, defaults, "exactly one of" and custom local checks.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/go_pattern.hpp"
#include "model/object.hpp"

namespace opctl::kinds::schema {

// One thing wrong with a value: where (JSON pointer and dotted field) and what.
struct Issue {
  std::string pointer;  // "/spec/retention/keep"
  std::string field;    // "spec.retention.keep"
  std::string message;
};

// A check the OpenAPI schema cannot express (a cron expression); returns an
// error message, empty when the value is fine. Runs only when the type matched.
using Check = std::function<std::string(const model::Json& value)>;

class Schema {
 public:
  enum class Type { object, string, integer, number, boolean, array, free_form };

  static Schema object() { return Schema(Type::object); }
  static Schema string() { return Schema(Type::string); }
  static Schema integer() { return Schema(Type::integer); }
  static Schema number() { return Schema(Type::number); }
  static Schema boolean() { return Schema(Type::boolean); }
  static Schema array(Schema items);
  // Any object (x-kubernetes-preserve-unknown-fields), e.g. a Pod volume source.
  static Schema free_form() { return Schema(Type::free_form); }
  // An object whose every key is free and every value is `values`
  // (additionalProperties): PostgreSQL parameters, a nodeSelector.
  static Schema map(Schema values);

  Schema& describe(std::string text);
  // A property of an object; `required` adds it to the required list.
  Schema& field(const std::string& name, Schema value, bool required = false);
  Schema& enumerate(std::vector<std::string> values);
  Schema& minimum(long value);
  Schema& maximum(long value);
  Schema& max_length(std::size_t value);
  // ECMAScript regex, anchored by the pattern itself (as OpenAPI does).
  Schema& pattern(std::string regex, std::string explanation);
  Schema& default_value(model::Json value);
  Schema& format(std::string name);  // OpenAPI format, e.g. date-time
  // Exactly one of these properties must be set (a CEL rule in the CRD).
  Schema& exactly_one_of(std::vector<std::string> names);
  Schema& check(Check custom);
  // x-kubernetes-list-type: map with these keys (conditions by type).
  Schema& list_map(std::vector<std::string> keys);

  // The OpenAPI v3 schema, as a CRD's openAPIV3Schema expects it.
  model::Json openapi() const;
  // Every issue with `value`, which sits at `pointer` / `field`.
  void validate(const model::Json& value, const std::string& pointer, const std::string& field,
                std::vector<Issue>& issues) const;

  Type type() const { return type_; }

 private:
  explicit Schema(Type type) : type_(type) {}
  void validate_object(const model::Json& value, const std::string& pointer, const std::string& field,
                       std::vector<Issue>& issues) const;
  bool type_matches(const model::Json& value) const;

  Type type_;
  std::string description_;
  std::vector<std::pair<std::string, Schema>> properties_;
  std::vector<std::string> required_;
  std::vector<Schema> items_;   // zero or one
  std::vector<Schema> values_;  // zero or one: a map's values
  std::vector<std::string> enum_;
  std::optional<long> minimum_;
  std::optional<long> maximum_;
  std::optional<std::size_t> max_length_;
  std::optional<model::GoPattern> pattern_;  // compiled as the API server runs it; text() is the CRD's
  std::string pattern_explanation_;
  model::Json default_;
  std::string format_;
  std::vector<std::string> exactly_one_;
  std::vector<Check> checks_;
  std::vector<std::string> list_map_keys_;
};

// A printer column of `kubectl get`.
struct PrinterColumn {
  std::string name;
  std::string type;  // string, integer, boolean, date
  std::string json_path;
  std::string description;
  int priority = 0;  // 0: always shown; 1: with -o wide
};

struct CrdNames {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
};

// A namespaced CustomResourceDefinition with a status subresource, one version.
model::Json custom_resource_definition(const CrdNames& names, const Schema& spec, const Schema& status,
                                       const std::vector<PrinterColumn>& columns);

// The status of metav1.Condition lists, shared by every kind.
Schema conditions_schema();

}  // namespace opctl::kinds::schema
