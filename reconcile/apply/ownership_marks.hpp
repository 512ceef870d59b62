// What opctl adds to every object it applies, so the cluster tells who
// manages an object and where it came from.
#pragma once

#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::apply {

inline constexpr const char* k_managed_by_label = "app.kubernetes.io/managed-by";
inline constexpr const char* k_managed_by_value = "opctl";

// Adds the managed-by label and the opctl.io/source annotation (when given).
void mark_managed(std::vector<model::Object>& objects, const std::string& source_annotation);

}  // namespace opctl::apply
