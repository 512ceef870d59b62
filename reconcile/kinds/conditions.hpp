// Standard conditions (metav1.Condition) as custom-kind status carries them:
// lastTransitionTime moves only when a condition's status changes.
#pragma once

#include <vector>

#include "kinds/kind_reconciler.hpp"
#include "kinds/kind_time.hpp"

namespace opctl::kinds {

// The conditions to write: `desired` in order, each with the lastTransitionTime
// of the live condition of the same type when its status is unchanged, else
// `now`, and observedGeneration. `live` is the live `status.conditions` (or null).
model::Json merge_conditions(const std::vector<Condition>& desired, const model::Json& live, long generation,
                             TimePoint now);

// The live condition of this type in an object's status; nullptr when absent.
const model::Json* find_condition(const model::Json& object, const std::string& type);

// Whether an object's status reports `type` as "True".
bool condition_true(const model::Json& object, const std::string& type);

// Back from JSON, for status written by someone else (hooks) or read live.
std::vector<Condition> conditions_from_json(const model::Json& conditions);

}  // namespace opctl::kinds
