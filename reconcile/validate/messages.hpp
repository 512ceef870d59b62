// Wording shared by the checks, so findings read alike.
#pragma once

#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::validate {

// A short description of a value: `the string "two"`, `the number 3.5`, `a list`.
std::string describe_value(const model::Json& value);

// The closest of `candidates` to `name` when it looks like a typo of it;
// empty when none is close enough.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

// ` (did you mean "x"?)`, or empty.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace opctl::validate
