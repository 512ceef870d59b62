#include "plan/selection.hpp"

#include <algorithm>
#include <map>

#include "plan/prune_set.hpp"

namespace opctl::plan {

std::vector<model::Object> selected_objects(const std::vector<model::Object>& desired,
                                            const model::LabelSelector& selector) {
  std::vector<model::Object> selected;
  std::copy_if(desired.begin(), desired.end(), std::back_inserter(selected),
               [&selector](const model::Object& object) { return selector.matches_object(object.body()); });
  return selected;
}

std::vector<model::Json> selected_members(std::vector<model::Json> members,
                                          const std::vector<model::Object>& desired,
                                          const model::LabelSelector& selector) {
  if (selector.empty()) return members;
  std::map<model::ObjectKey, bool> desired_selected;
  for (const auto& object : desired)
    desired_selected[object.key()] = selector.matches_object(object.body());
  std::erase_if(members, [&](const model::Json& member) {
    auto found = desired_selected.find(key_of_live(member));
    return found != desired_selected.end() ? !found->second : !selector.matches_object(member);
  });
  return members;
}

}  // namespace opctl::plan
