// Validation of a desired set beyond identity: schemas, references, scopes.
#pragma once

#include <vector>

#include "model/error.hpp"
#include "model/object.hpp"

namespace opctl::validate {

struct Finding {
  enum class Severity { error, warning } severity = Severity::error;
  Problem problem;
};

}  // namespace opctl::validate
