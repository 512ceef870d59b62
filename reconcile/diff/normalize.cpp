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

namespace {

// The live value opctl.io/source takes in `desired`, or null when it keeps its own.
const model::Json* carried_source(const model::Json& desired, const model::Json* live) {
  auto pointer = model::Json::json_pointer("/metadata/annotations") / k_source_annotation;
  if (live == nullptr || !desired.is_object() || !desired.contains(pointer)) return nullptr;
  if (!desired.at(pointer).is_string() || desired.at(pointer).get_ref<const std::string&>().empty())
    return nullptr;
  if (!live->contains(pointer) || !live->at(pointer).is_string() || live->at(pointer) == desired.at(pointer))
    return nullptr;
  return &live->at(pointer);
}

}  // namespace

void carry_source_annotation(model::Object& desired, const model::Json* live) {
  // Read first: an object whose annotation already matches stays packed.
  if (const model::Json* value = carried_source(desired.body(), live))
    desired.set_annotation(k_source_annotation, value->get<std::string>());
}

void carry_source_annotation(model::Json& desired, const model::Json* live) {
  if (const model::Json* value = carried_source(desired, live))
    desired[model::Json::json_pointer("/metadata/annotations") / k_source_annotation] = *value;
}

}  // namespace opctl::diff
