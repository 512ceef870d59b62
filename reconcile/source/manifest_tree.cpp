#include "source/manifest_tree.hpp"

#include <algorithm>

#include "source/helm_charts.hpp"
#include "source/kustomize.hpp"

namespace opctl::source {

namespace {

bool has_kustomization(const std::vector<FileTree::Entry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const FileTree::Entry& entry) {
    return entry.kind == FileTree::Kind::file && is_kustomization_file_name(entry.name);
  });
}

bool has_chart(const std::vector<FileTree::Entry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const FileTree::Entry& entry) {
    return entry.kind == FileTree::Kind::file && entry.name == k_chart_file_name;
  });
}

bool has_ignore_file(const std::vector<FileTree::Entry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const FileTree::Entry& entry) {
    return entry.kind == FileTree::Kind::file && entry.name == k_ignore_file_name;
  });
}

// Depth first in name order, which is the order of the paths compared part by part. Rules of an
// .opctlignore below the root are added on the way down; they only ever match below their own directory.
// A chart leaves a placeholder in `out`, rendered once the walk is done: its
// helm: entry may be in an opctl.yaml read after it.
void collect(FileTree& tree, const std::string& directory, const CollectOptions& options, IgnoreRules& ignore,
             std::vector<ManifestFile>& out, std::vector<FoundChart>& charts) {
  auto entries = tree.list(directory);
  if (has_kustomization(entries)) {
    std::string display = tree.display(directory) + " (kustomize output)";
    out.push_back(
        {display, options.render_kustomization(tree.on_disk(directory), tree.display(directory)), true});
    return;
  }
  if (has_chart(entries)) {
    charts.push_back({out.size(), directory});
    out.push_back({tree.display(directory) + " (helm chart)", "", true});
    return;
  }
  if (!ignore.loaded(directory) && has_ignore_file(entries))
    ignore.add(tree.read(join_tree_path(directory, std::string(k_ignore_file_name))), directory);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& entry : entries) {
    if (entry.name.starts_with('.')) continue;
    std::string path = join_tree_path(directory, entry.name);
    bool is_directory = entry.kind == FileTree::Kind::directory;
    if (ignore.ignored(path, is_directory)) continue;
    if (entry.kind == FileTree::Kind::symlink && options.on_warning)
      options.on_warning(tree.display(path) +
                         ": a symbolic link, not followed (opctl reads a directory as git reads "
                         "a tree)");
    if (is_directory)
      collect(tree, path, options, ignore, out, charts);
    else if (entry.kind == FileTree::Kind::file && is_manifest_file_name(entry.name))
      out.push_back({tree.display(path), tree.read(path)});
  }
}

bool has_file(const FileTree& tree, const std::string& directory, const std::string& name) {
  auto entries = tree.list(directory);
  return std::any_of(entries.begin(), entries.end(), [&](const FileTree::Entry& entry) {
    return entry.kind == FileTree::Kind::file && entry.name == name;
  });
}

}  // namespace

std::string join_tree_path(const std::string& directory, const std::string& name) {
  return directory.empty() ? name : directory + "/" + name;
}

IgnoreRules load_ignore_rules(const FileTree& tree, const std::string& root) {
  IgnoreRules rules;
  const std::string name(k_ignore_file_name);
  // The tree's root, then every directory on the way down to `root`, as git reads .gitignore files.
  std::string directory;
  for (std::size_t next = 0;;) {
    if (has_file(tree, directory, name)) rules.add(tree.read(join_tree_path(directory, name)), directory);
    if (directory == root) break;
    next = root.find('/', next + 1);
    directory = root.substr(0, next);
    if (next == std::string::npos) next = root.size();
  }
  return rules;
}

std::vector<ManifestFile> collect_manifests(FileTree& tree, const std::string& root,
                                            const CollectOptions& options) {
  std::vector<ManifestFile> files;
  std::vector<FoundChart> charts;
  IgnoreRules ignore = options.ignore;
  collect(tree, root, options, ignore, files, charts);
  HelmSettings settings = options.helm_settings_of ? options.helm_settings_of(files) : HelmSettings{};
  if (charts.empty() && settings.releases.empty()) return files;
  return render_charts(tree, root, std::move(files), charts,
                       {options.render_chart, std::move(settings), options.on_warning});
}

}  // namespace opctl::source
