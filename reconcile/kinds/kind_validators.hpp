// The custom kinds as `opctl validate` checks them: one KindValidator (the
// extension point in validate/kind_validator.hpp) per registered kind, giving
// the kind's spec errors (schema, cron, references in the set) and warnings
// (advice such as a schedule its retention cannot hold).
#pragma once

#include <memory>
#include <vector>

#include "kinds/kind_registry.hpp"
#include "validate/kind_validator.hpp"

namespace opctl::kinds {

// The registry must outlive the validators.
std::vector<std::unique_ptr<validate::KindValidator>> kind_validators(const KindRegistry& registry);

}  // namespace opctl::kinds
