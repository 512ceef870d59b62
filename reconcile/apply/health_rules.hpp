// Whether an applied object is healthy: one small rule per kind, registered
// in one ordered list, each answering {state, message} like kapp's wait rules.
// A `failed` state means the object can no longer become healthy on its own,
// so waiting stops at once instead of running into the timeout.
#pragma once

#include <string>

#include "model/object.hpp"

namespace opctl::apply {

enum class HealthState { healthy, progressing, failed };

const char* to_string(HealthState state);

struct HealthStatus {
  HealthState state = HealthState::healthy;
  std::string message;
};

// The health of a live object (as returned by the API server).
HealthStatus assess_health(const model::Json& live);

}  // namespace opctl::apply
