// Checks a value against an OpenAPI v3 schema the way the API server decodes
// and validates it, reporting every violation, not just the first.
#pragma once

#include <string>
#include <vector>

#include "model/object.hpp"
#include "validate/field_path.hpp"
#include "validate/openapi_document.hpp"

namespace opctl::validate {

struct Violation {
  FieldPath path;
  std::string message;
  bool warning = false;  // not a violation of the value: what could not be checked (a pattern RE2 refuses)
};

// What is checked: `$ref` and `allOf` (how Kubernetes wraps references),
// `type`, `format` (int32, int64, byte, date-time), int-or-string, Quantity
// syntax, `enum`, `oneOf`/`anyOf`, `required`, `properties` (a field not
// listed is unknown unless `additionalProperties` or
// `x-kubernetes-preserve-unknown-fields` allows it; an object schema without
// properties is free-form), `items`, duplicate keys of
// `x-kubernetes-list-type: map|set` lists (server-side apply rejects them),
// and the limits CRD schemas use (minimum, maximum, minLength, maxLength,
// pattern, minItems, maxItems, minProperties, maxProperties). CEL rules
// (x-kubernetes-validations) are left to the API server. A `pattern` runs in
// RE2, as the API server's Go regexp runs it, compiled once per document; one
// RE2 refuses is a warning naming it, and the value is not checked against it.
// A null value counts as absent (the API server decodes it so) unless the
// schema is `nullable`.
std::vector<Violation> check_schema(const model::Json& value, const model::Json& schema,
                                    const OpenApiDocument& document, const FieldPath& at = {});

}  // namespace opctl::validate
