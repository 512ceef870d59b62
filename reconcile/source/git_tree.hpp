// A commit's tree in the cache, read straight from the object database (no
// checkout, so a run never sees a dirty or half-updated work tree), and
// written out to a temporary directory only when kustomize needs files.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "source/git_handles.hpp"
#include "source/manifest_tree.hpp"

namespace opctl::source {

class GitTree : public FileTree {
 public:
  // `display_prefix` starts every displayed path: "repo@abc1234:".
  GitTree(git_repository& repository, git_commit& commit, std::string display_prefix);
  ~GitTree() override;

  enum class PathKind { missing, file, directory, other };
  PathKind kind_of(const std::string& path) const;

  std::vector<Entry> list(const std::string& directory) const override;
  std::string read(const std::string& path) const override;
  std::filesystem::path on_disk(const std::string& directory) override;
  std::string display(const std::string& path) const override;

 private:
  TreePtr subtree(const std::string& directory) const;
  void write_tree(git_tree& tree, const std::filesystem::path& target) const;

  git_repository& repository_;
  TreePtr root_;
  std::string display_prefix_;
  std::filesystem::path materialised_;  // empty until on_disk() is first needed
};

}  // namespace opctl::source
