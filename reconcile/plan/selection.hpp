// -l/--selector over a set, as kubectl selects: a desired object by the labels
// it declares, a member no longer desired (a prune candidate) by its live
// labels. A member that is still desired follows its desired object, so a
// label removed in git never makes a selected member look pruned.
#pragma once

#include <vector>

#include "model/label_selector.hpp"
#include "model/object.hpp"

namespace opctl::plan {

// The desired objects the selector selects (all of them for an empty one).
std::vector<model::Object> selected_objects(const std::vector<model::Object>& desired,
                                            const model::LabelSelector& selector);

// The live members to consider: those whose desired object (in all of `desired`, selected or not) is
// selected, and those no longer desired whose live labels are.
std::vector<model::Json> selected_members(std::vector<model::Json> members,
                                          const std::vector<model::Object>& desired,
                                          const model::LabelSelector& selector);

}  // namespace opctl::plan
