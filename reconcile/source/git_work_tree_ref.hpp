// A directory of a git work tree as it is at another revision of the same
// repository (`opctl diff --base` on a CI checkout), read from the work
// tree's own object database: any revision git names (origin/main, HEAD~1,
// a tag, a commit) works without fetching anything.
#pragma once

#include "source/desired_source.hpp"

namespace opctl::source {

// Reads options.path as it is at options.work_tree_ref, walking it as a
// commit of the cache is walked (kustomizations, charts, .opctlignore).
// Throws InvalidInputError when the directory is in no work tree, the
// revision is unknown (a shallow clone may not have it) or the path did not
// exist at it.
DesiredSource load_work_tree_ref(const SourceOptions& options);

}  // namespace opctl::source
