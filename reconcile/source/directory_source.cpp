#include "source/directory_source.hpp"

#include <fstream>
#include <sstream>

#include "model/error.hpp"
#include "source/git_worktree.hpp"
#include "source/kustomize.hpp"
#include "source/manifest_tree.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

std::string read_whole_file(const fs::path& path, const std::string& display) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidInputError({Problem{display, 0, "", "cannot read file"}});
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// The directory on disk as a FileTree rooted at `base` (the work tree, or the directory
// itself); displayed paths start with the directory as the user typed it.
class DirectoryTree : public FileTree {
 public:
  DirectoryTree(fs::path base, std::string start, fs::path user_root)
      : base_(std::move(base)), start_(std::move(start)), user_root_(std::move(user_root)) {}

  std::vector<Entry> list(const std::string& directory) const override {
    std::vector<Entry> entries;
    std::error_code error;
    for (const auto& item : fs::directory_iterator(disk(directory), error)) {
      // A link is never followed: `a -> .` would loop, `b -> /etc` would leave the directory.
      Kind kind = item.is_symlink(error)        ? Kind::symlink
                  : item.is_directory(error)    ? Kind::directory
                  : item.is_regular_file(error) ? Kind::file
                                                : Kind::other;
      entries.push_back({item.path().filename().string(), kind});
    }
    return entries;
  }

  std::string read(const std::string& path) const override {
    return read_whole_file(disk(path), display(path));
  }

  fs::path on_disk(const std::string& directory) override { return disk(directory); }

  std::string display(const std::string& path) const override {
    std::string below =
        path.size() > start_.size() ? path.substr(start_.empty() ? 0 : start_.size() + 1) : "";
    return below.empty() ? user_root_.string() : (user_root_ / below).string();
  }

 private:
  fs::path disk(const std::string& path) const { return path.empty() ? base_ : base_ / path; }

  fs::path base_;
  std::string start_;  // `root` relative to base_, "" when they are the same
  fs::path user_root_;
};

}  // namespace

std::vector<ManifestFile> read_directory(
    const fs::path& root, const std::function<void(const std::string&)>& on_warning,
    const std::function<HelmSettings(const std::vector<ManifestFile>&)>& helm_settings_of) {
  std::error_code error;
  if (!fs::exists(root, error)) throw InvalidInputError({Problem{root.string(), 0, "", "no such directory"}});
  if (fs::is_regular_file(root, error))
    return {ManifestFile{root.string(), read_whole_file(root, root.string())}};
  if (!fs::is_directory(root, error))
    throw InvalidInputError({Problem{root.string(), 0, "", "not a directory"}});

  // Inside a work tree, the tree is rooted there so its top-level .opctlignore applies too,
  // exactly as when the same commit is read through --repo.
  fs::path base = fs::weakly_canonical(fs::absolute(root), error);
  std::string start;
  if (auto work_tree = enclosing_work_tree(base)) {
    start = base.lexically_relative(*work_tree).generic_string();
    if (start == ".") start.clear();
    base = *work_tree;
  }
  DirectoryTree tree(base, start, root);
  CollectOptions options{load_ignore_rules(tree, start), render_kustomization, on_warning, render_helm_chart,
                         helm_settings_of};
  return collect_manifests(tree, start, options);
}

}  // namespace opctl::source
