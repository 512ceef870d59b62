#include "source/git_work_tree_ref.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "model/error.hpp"
#include "source/git_handles.hpp"
#include "source/git_revision.hpp"
#include "source/git_tree.hpp"
#include "source/git_worktree.hpp"
#include "source/kustomize.hpp"
#include "source/manifest_tree.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void invalid(const std::string& file, const std::string& message) {
  throw InvalidInputError({Problem{file, 0, "", message}});
}

CommitPtr resolve_revision(git_repository& repository, const std::string& ref, const fs::path& work_tree) {
  git_object* raw = nullptr;
  if (git_revparse_single(&raw, &repository, ref.c_str()) < 0)
    invalid(work_tree.string(),
            fmt::format("no revision \"{}\" in this repository ({}); a shallow CI checkout may "
                        "need it fetched first, e.g. git fetch origin main",
                        ref, last_git_failure(-1).message));
  ObjectPtr object(raw);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, object.get(), GIT_OBJECT_COMMIT) < 0)
    invalid(work_tree.string(), fmt::format("revision \"{}\" does not name a commit", ref));
  return CommitPtr(reinterpret_cast<git_commit*>(peeled));
}

}  // namespace

DesiredSource load_work_tree_ref(const SourceOptions& options) {
  auto work_tree = enclosing_work_tree(options.path);
  if (!work_tree)
    invalid(options.path, "is in no git work tree, so it has no revision \"" + options.work_tree_ref +
                              "\"; use --repo, or run inside a checkout");
  ensure_libgit2();
  git_repository* raw = nullptr;
  if (git_repository_open(&raw, work_tree->c_str()) < 0)
    invalid(work_tree->string(), "cannot open the git repository: " + last_git_failure(-1).message);
  RepositoryPtr repository(raw);
  CommitPtr commit = resolve_revision(*repository, options.work_tree_ref, *work_tree);

  std::error_code error;
  std::string path =
      fs::weakly_canonical(fs::absolute(options.path), error).lexically_relative(*work_tree).generic_string();
  if (path == ".") path.clear();
  DesiredSource source;
  source.revision = work_tree_revision(options.path).value_or(SourceRevision{});
  describe_commit(*commit, source.revision);  // the revision asked for, not the checkout's HEAD
  source.revision.ref = options.work_tree_ref;
  source.revision.path = path;

  GitTree tree(*repository, *commit,
               options.work_tree_ref + "@" + short_commit_id(source.revision.commit) + ":");
  auto kind = tree.kind_of(path);
  if (kind == GitTree::PathKind::missing || kind == GitTree::PathKind::other)
    invalid(options.path,
            fmt::format("has no directory or file \"{}\" at {} (commit {})", path.empty() ? "." : path,
                        options.work_tree_ref, short_commit_id(source.revision.commit)));
  if (kind == GitTree::PathKind::file) {
    source.files = {ManifestFile{tree.display(path), tree.read(path)}};
    return source;
  }
  CollectOptions collect{load_ignore_rules(tree, path), render_kustomization, options.on_warning,
                         render_helm_chart, options.helm_settings_of};
  source.files = collect_manifests(tree, path, collect);
  return source;
}

}  // namespace opctl::source
