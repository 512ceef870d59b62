// The string and number formats Kubernetes schemas name, checked the way the
// API server parses them.
#pragma once

#include <optional>
#include <string>

#include "model/object.hpp"

namespace opctl::validate {

// What is wrong with `value` for an OpenAPI `format` ("int32", "int64",
// "byte", "date-time"); nullopt when it fits or the format is not checked.
std::optional<std::string> format_problem(const std::string& format, const model::Json& value);

// resource.Quantity's syntax: "500m", "64Mi", "1.5", "1e3".
bool is_quantity(const std::string& text);

}  // namespace opctl::validate
