#include "source/desired_source.hpp"

#include <filesystem>

#include "model/error.hpp"
#include "source/directory_source.hpp"
#include "source/git_source.hpp"
#include "source/git_worktree.hpp"

namespace opctl::source {

std::string SourceRevision::annotation() const {
  if (commit.empty()) return path;
  return repo + "@" + commit + ":" + (path.empty() ? "." : path);
}

DesiredSource load_desired_source(const SourceOptions& options) {
  if (!options.repo.empty()) return load_git_source(options);
  DesiredSource source;
  source.files = read_directory(options.path);
  // A directory inside a checkout records the commit it was checked out at.
  if (auto revision = work_tree_revision(options.path))
    source.revision = std::move(*revision);
  else
    source.revision.path = options.path;
  return source;
}

SourceRevision fetch_desired_source(const SourceOptions& options) {
  if (!options.repo.empty()) return fetch_git_source(options);
  std::error_code error;
  if (!std::filesystem::exists(options.path, error))
    throw InvalidInputError({Problem{options.path, 0, "", "no such file or directory"}});
  if (auto revision = work_tree_revision(options.path)) return *revision;
  SourceRevision revision;
  revision.path = options.path;
  return revision;
}

}  // namespace opctl::source
