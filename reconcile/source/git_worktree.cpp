#include "source/git_worktree.hpp"

#include "source/commit_signature.hpp"
#include "source/git_handles.hpp"
#include "source/git_revision.hpp"
#include "source/git_url.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

bool has_changes_below(git_repository& repository, const std::string& relative) {
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
                  GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  std::string pathspec = relative.empty() || relative == "." ? "*" : relative;
  char* paths[] = {pathspec.data()};
  options.pathspec = {paths, 1};
  git_status_list* raw = nullptr;
  if (git_status_list_new(&raw, &repository, &options) < 0) return false;
  StatusListPtr status(raw);
  return git_status_list_entrycount(status.get()) > 0;
}

std::string origin_url(git_repository& repository) {
  git_remote* raw = nullptr;
  if (git_remote_lookup(&raw, &repository, "origin") < 0) return {};
  RemotePtr remote(raw);
  const char* url = git_remote_url(remote.get());
  if (url == nullptr) return {};
  try {
    return parse_git_url(url, "/").display;
  } catch (const std::exception&) {
    return redact_credentials(url);
  }
}

// What HEAD's signature is, for `opctl fetch`; a plain directory is never verified.
std::string signature_format_of(git_repository& repository, const git_commit& commit) {
  try {
    return format_name(read_commit_signature(repository, commit).format);
  } catch (const CacheCorrupted&) {
    return {};
  }
}

}  // namespace

std::optional<fs::path> enclosing_work_tree(const fs::path& directory) {
  std::error_code error;
  fs::path current = fs::weakly_canonical(fs::absolute(directory, error), error);
  if (error) return std::nullopt;
  for (; !current.empty(); current = current.parent_path()) {
    if (fs::exists(current / ".git", error)) return current;
    if (current == current.root_path()) break;
  }
  return std::nullopt;
}

std::optional<SourceRevision> work_tree_revision(const fs::path& directory) {
  auto root = enclosing_work_tree(directory);
  if (!root) return std::nullopt;
  ensure_libgit2();
  git_repository* raw = nullptr;
  if (git_repository_open(&raw, root->c_str()) < 0) return std::nullopt;
  RepositoryPtr repository(raw);
  git_object* head_raw = nullptr;
  if (git_revparse_single(&head_raw, repository.get(), "HEAD^{commit}") < 0) return std::nullopt;
  ObjectPtr head(head_raw);

  SourceRevision revision;
  auto& commit = *reinterpret_cast<git_commit*>(head.get());
  describe_commit(commit, revision);
  revision.signer.format = signature_format_of(*repository, commit);
  std::error_code error;
  std::string relative =
      fs::weakly_canonical(fs::absolute(directory), error).lexically_relative(*root).string();
  if (relative == ".") relative.clear();
  if (has_changes_below(*repository, relative)) revision.commit += "-dirty";
  revision.repo = origin_url(*repository);
  if (revision.repo.empty()) revision.repo = root->string();
  revision.path = relative;
  git_reference* head_ref = nullptr;
  if (git_repository_head(&head_ref, repository.get()) == 0) {
    ReferencePtr owned(head_ref);
    if (git_reference_is_branch(owned.get())) revision.ref = git_reference_shorthand(owned.get());
  }
  return revision;
}

}  // namespace opctl::source
