// What is left of an object once the fields the server owns are dropped, so
// that a comparison or a displayed diff shows only what a user wrote.
#pragma once

#include "model/object.hpp"

namespace opctl::diff {

inline constexpr const char* k_last_applied_annotation = "kubectl.kubernetes.io/last-applied-configuration";
inline constexpr const char* k_source_annotation = "opctl.io/source";
inline constexpr const char* k_diff_annotation = "opctl.io/diff";

// Drops managedFields, resourceVersion, generation, uid, creationTimestamp,
// selfLink, status and kubectl's last-applied annotation; removes maps left
// empty by that.
model::Json normalize(const model::Json& object);

// Gives `desired` the opctl.io/source annotation live already has, so that a
// new commit does not by itself count as a change to every object.
void carry_source_annotation(model::Object& desired, const model::Json* live);
// The same for a desired object's body (a copy of the body costs less than
// one of the Object, which also holds the source lines of its fields).
void carry_source_annotation(model::Json& desired, const model::Json* live);

}  // namespace opctl::diff
