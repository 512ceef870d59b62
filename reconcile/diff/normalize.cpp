#include "diff/normalize.hpp"

namespace opctl::diff {

model::Json normalize(const model::Json& object) {
  model::Json result = object;
  if (!result.is_object()) return result;
  result.erase("status");
  if (result.contains("metadata") && result["metadata"].is_object()) {
    auto& metadata = result["metadata"];
    for (const char* field :
         {"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink"})
      metadata.erase(field);
    if (metadata.contains("annotations") && metadata["annotations"].is_object()) {
      metadata["annotations"].erase(k_last_applied_annotation);
      if (metadata["annotations"].empty()) metadata.erase("annotations");
    }
  }
  return result;
}

void carry_source_annotation(model::Object& desired, const model::Json* live) {
  carry_source_annotation(desired.body(), live);
}

void carry_source_annotation(model::Json& desired, const model::Json* live) {
  auto pointer = model::Json::json_pointer("/metadata/annotations") / k_source_annotation;
  if (live == nullptr || !desired.is_object() || !desired.contains(pointer)) return;
  if (!desired.at(pointer).is_string() || desired.at(pointer).get_ref<const std::string&>().empty()) return;
  if (live->contains(pointer) && live->at(pointer).is_string()) desired[pointer] = live->at(pointer);
}

}  // namespace opctl::diff
