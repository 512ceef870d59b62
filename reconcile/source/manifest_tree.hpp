// Collecting manifests from a tree of files, the same way whether the tree is
// a directory on disk or a commit in a git cache: sorted, hidden entries and
// .opctlignore-d paths skipped, kustomizations rendered.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "source/helm_chart.hpp"
#include "source/manifest_file.hpp"
#include "source/opctlignore.hpp"

namespace opctl::source {

// A read-only tree of files; paths are '/'-separated and relative to its root ("" is the root).
class FileTree {
 public:
  enum class Kind { file, directory, symlink, other };
  struct Entry {
    std::string name;
    Kind kind = Kind::other;
  };

  virtual ~FileTree() = default;
  virtual std::vector<Entry> list(const std::string& directory) const = 0;
  virtual std::string read(const std::string& path) const = 0;
  // A directory on disk holding `directory` with the rest of the tree around it
  // (kustomizations refer to ../base), for `kubectl kustomize`.
  virtual std::filesystem::path on_disk(const std::string& directory) = 0;
  // How a path appears in messages: "manifests/app.yaml", "repo@abc1234:manifests/app.yaml".
  virtual std::string display(const std::string& path) const = 0;
};

// Renders the kustomization in `directory`; `display` names it in messages.
using KustomizeRenderer =
    std::function<std::string(const std::filesystem::path& directory, const std::string& display)>;

struct CollectOptions {
  IgnoreRules ignore;  // the rules from above the root (load_ignore_rules); those below are read on the way
  KustomizeRenderer render_kustomization;
  // Told of every symbolic link below the root: never followed, as git never
  // follows one in a tree, so a directory and its commit give the same set.
  std::function<void(const std::string&)> on_warning;
  // Renders a Helm chart: a directory with a Chart.yaml, or one a helm: entry names.
  ChartRenderer render_chart = render_helm_chart;
  // The helm: entries and the default namespace, asked once the walk is done
  // (they may come from an opctl.yaml it read). Unset: none.
  std::function<HelmSettings(const std::vector<ManifestFile>&)> helm_settings_of = {};
};

// Every *.yaml, *.yml and *.json file below `root`, sorted by path. Hidden files and
// directories and paths excluded by an .opctlignore (at or above `root`, or in the
// directory being read, as with .gitignore) are skipped; a directory holding a
// kustomization file (the root or any below it) contributes one file instead, the
// rendered output; a directory holding a Chart.yaml contributes one file per
// template helm rendered (see helm_charts.hpp).
std::vector<ManifestFile> collect_manifests(FileTree& tree, const std::string& root,
                                            const CollectOptions& options);

// "a" + "b" -> "a/b"; "" + "b" -> "b".
std::string join_tree_path(const std::string& directory, const std::string& name);

// The rules of the .opctlignore files at the tree's root and in each directory down to `root`.
IgnoreRules load_ignore_rules(const FileTree& tree, const std::string& root);

}  // namespace opctl::source
