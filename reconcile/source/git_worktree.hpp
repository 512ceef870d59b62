// A plain directory that lies inside a git work tree (CI on a checkout): which
// commit it comes from, so the run's revision says so even without --repo.
#pragma once

#include <filesystem>
#include <optional>

#include "source/desired_source.hpp"

namespace opctl::source {

// The work tree's root when `directory` is inside one (found by walking up to a `.git`).
std::optional<std::filesystem::path> enclosing_work_tree(const std::filesystem::path& directory);

// The revision of the work tree holding `directory`: HEAD's commit (with "-dirty"
// appended when anything below `directory` differs from it, untracked files
// included), author, time and subject, the branch as ref, origin's URL (without
// credentials; else the work tree's path) as repo and the path inside it.
// nullopt outside a work tree or before the first commit.
std::optional<SourceRevision> work_tree_revision(const std::filesystem::path& directory);

}  // namespace opctl::source
