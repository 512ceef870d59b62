#include "apply/ownership_marks.hpp"

#include "diff/normalize.hpp"

namespace opctl::apply {

void mark_managed(std::vector<model::Object>& objects, const std::string& source_annotation) {
  for (auto& object : objects) {
    object.set_label(k_managed_by_label, k_managed_by_value);
    if (!source_annotation.empty()) object.set_annotation(diff::k_source_annotation, source_annotation);
  }
}

}  // namespace opctl::apply
