// How a plain YAML scalar is typed: shared by the parser (reading) and to_yaml
// (deciding when a string must be quoted to stay a string).
#pragma once

#include <stdexcept>
#include <string>

#include "model/object.hpp"

namespace opctl::model {

// A plain scalar that reads as a number beyond a double's range (`1e999`).
// go-yaml makes it +Inf, which JSON cannot carry, so kubectl refuses it too.
class NumberOutOfRange : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Plain (unquoted, untagged) scalars are resolved like go-yaml v2, which is
// what kubectl and the API machinery use, so `on` is a boolean here too.
// (By value: the text of a string is moved into the JSON.) Throws
// NumberOutOfRange for a float no double holds.
Json resolve_plain_scalar(std::string text);

}  // namespace opctl::model
