#include "apply/ownership_marks.hpp"

#include "diff/normalize.hpp"
#include "plan/applyset.hpp"

namespace opctl::apply {

void mark_managed(std::vector<model::Object>& objects, const std::string& source_annotation,
                  const std::string& applyset_id) {
  for (auto& object : objects) {
    model::PackedAfter packed(object);
    object.set_label(k_managed_by_label, k_managed_by_value);
    if (!source_annotation.empty()) object.set_annotation(diff::k_source_annotation, source_annotation);
    if (!applyset_id.empty()) object.set_label(plan::k_applyset_part_of_label, applyset_id);
  }
}

}  // namespace opctl::apply
