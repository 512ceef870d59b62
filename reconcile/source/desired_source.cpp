#include "source/desired_source.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "model/error.hpp"
#include "source/commit_signature.hpp"
#include "source/directory_source.hpp"
#include "source/git_source.hpp"
#include "source/git_url.hpp"
#include "source/git_work_tree_ref.hpp"
#include "source/git_worktree.hpp"

namespace opctl::source {
namespace {

// A directory inside a checkout records the commit it was checked out at.
SourceRevision directory_revision(const std::string& path) {
  if (auto revision = work_tree_revision(path)) return std::move(*revision);
  SourceRevision revision;
  revision.path = path;
  return revision;
}

}  // namespace

std::string SourceRevision::annotation() const {
  if (commit.empty()) return path;
  return repo + "@" + commit + ":" + (path.empty() ? "." : path);
}

std::string set_source_identity(const SourceOptions& options) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (options.repo.empty()) return fs::weakly_canonical(fs::absolute(options.path), error).string();
  std::string path = normalize_tree_path(options.path);  // throws for a path that leaves the repository
  return fmt::format("{}:{}", parse_git_url(options.repo, fs::current_path(error).string()).display,
                     path.empty() ? std::string(".") : path);
}

DesiredSource load_desired_source(const SourceOptions& options) {
  check_verification_settings(options);
  if (!options.repo.empty()) return load_git_source(options);
  if (!options.work_tree_ref.empty()) return load_work_tree_ref(options);
  DesiredSource source;
  source.files = read_directory(options.path, options.on_warning, options.helm_settings_of);
  source.revision = directory_revision(options.path);
  return source;
}

SourceRevision fetch_desired_source(const SourceOptions& options) {
  check_verification_settings(options);
  if (!options.repo.empty()) return fetch_git_source(options);
  std::error_code error;
  if (!std::filesystem::exists(options.path, error))
    throw InvalidInputError({Problem{options.path, 0, "", "no such file or directory"}});
  return directory_revision(options.path);
}

}  // namespace opctl::source
