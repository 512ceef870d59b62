// Desired state from a git repository: fetched incrementally into a locked
// cache, the ref resolved to a commit, the manifests read from its tree.
#pragma once

#include <string>

#include "source/desired_source.hpp"

namespace opctl::source {

DesiredSource load_git_source(const SourceOptions& options);

// The fetch and ref resolution of load_git_source, and a check that the path
// exists at that commit; no file is read.
SourceRevision fetch_git_source(const SourceOptions& options);

// --path as a path inside the repository: "./a//b/" -> "a/b", "." or "/" -> "".
// Throws InvalidInputError when it climbs out of the repository with "..".
std::string normalize_tree_path(const std::string& path);

}  // namespace opctl::source
