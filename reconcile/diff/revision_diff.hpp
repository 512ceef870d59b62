// What a change to the source does to the set it describes: the objects
// added, removed and changed between two revisions of the manifests, compared
// as the live diff compares them (normalised, ignore rules, Secret values
// masked), with no cluster involved.
#pragma once

#include <vector>

#include "diff/object_diff.hpp"
#include "model/object.hpp"

namespace opctl::diff {

// One ObjectDiff per object of either revision, sorted by identity: `added`
// when only `head` has it, `removed` when only `base` has it, else `changed` or `unchanged`. Objects are
// matched by identity as written (group, kind, namespace, name; the version is left out, as a cluster serves
// one object under every version of its group).
std::vector<ObjectDiff> compare_revisions(const std::vector<model::Object>& base,
                                          const std::vector<model::Object>& head,
                                          const CompareOptions& options);

}  // namespace opctl::diff
