#include "source/manifest_tree.hpp"

#include <algorithm>

#include "source/kustomize.hpp"

namespace opctl::source {

namespace {

bool has_kustomization(const std::vector<FileTree::Entry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const FileTree::Entry& entry) {
    return entry.kind == FileTree::Kind::file && is_kustomization_file_name(entry.name);
  });
}

void collect(FileTree& tree, const std::string& directory, const CollectOptions& options,
             std::vector<ManifestFile>& out) {
  auto entries = tree.list(directory);
  if (has_kustomization(entries)) {
    std::string display = tree.display(directory) + " (kustomize output)";
    out.push_back({display, options.render_kustomization(tree.on_disk(directory), tree.display(directory))});
    return;
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& entry : entries) {
    if (entry.name.starts_with('.')) continue;
    std::string path = join_tree_path(directory, entry.name);
    bool is_directory = entry.kind == FileTree::Kind::directory;
    if (options.ignore.ignored(path, is_directory)) continue;
    if (is_directory) collect(tree, path, options, out);
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
  if (has_file(tree, "", name)) rules.add(tree.read(name), "");
  if (!root.empty() && has_file(tree, root, name)) rules.add(tree.read(join_tree_path(root, name)), root);
  return rules;
}

std::vector<ManifestFile> collect_manifests(FileTree& tree, const std::string& root, const CollectOptions& options) {
  std::vector<ManifestFile> files;
  collect(tree, root, options, files);
  return files;
}

}  // namespace opctl::source
