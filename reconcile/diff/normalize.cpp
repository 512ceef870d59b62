#include "diff/normalize.hpp"

namespace opctl::diff {

model::Json normalize(const model::Json& object) {
  model::Json result = object;
  if (!result.is_object()) return result;
  result.erase("status");
  if (result.contains("metadata") && result["metadata"].is_object()) {
    auto& metadata = result["metadata"];
    for (const char* field : {"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink"})
      metadata.erase(field);
    if (metadata.contains("annotations") && metadata["annotations"].is_object()) {
      metadata["annotations"].erase(k_last_applied_annotation);
      if (metadata["annotations"].empty()) metadata.erase("annotations");
    }
  }
  return result;
}

}  // namespace opctl::diff
