// What opctl adds to every object it applies, so the cluster tells who
// manages an object and where it came from.
#pragma once

#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::apply {

inline constexpr const char* k_managed_by_label = "app.kubernetes.io/managed-by";
inline constexpr const char* k_managed_by_value = "opctl";

// Adds the managed-by label, the opctl.io/source annotation and the
// ApplySet's part-of label (each when given). One pass over the set: a
// packed object is decoded and encoded once for all three, and the pass's
// own plan::label_members then finds its label in place.
void mark_managed(std::vector<model::Object>& objects, const std::string& source_annotation,
                  const std::string& applyset_id = "");

}  // namespace opctl::apply
