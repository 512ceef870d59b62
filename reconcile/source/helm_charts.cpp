#include "source/helm_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "model/error.hpp"
#include "source/helm_output.hpp"

namespace opctl::source {

namespace {

[[noreturn]] void invalid_entry(const std::string& declared_at, const std::string& field,
                                const std::string& message) {
  throw InvalidInputError({Problem{declared_at, 0, field, message}});
}

// The kind of the entry at `path`, found by listing each directory on the way
// down (listing a missing directory of a commit would read as a damaged cache).
std::optional<FileTree::Kind> entry_kind(const FileTree& tree, const std::string& path) {
  if (path.empty()) return FileTree::Kind::directory;
  std::string directory;
  std::size_t start = 0;
  while (true) {
    auto slash = path.find('/', start);
    std::string name = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    auto entries = tree.list(directory);
    auto found =
        std::find_if(entries.begin(), entries.end(), [&](const auto& entry) { return entry.name == name; });
    if (found == entries.end()) return std::nullopt;
    if (slash == std::string::npos) return found->kind;
    if (found->kind != FileTree::Kind::directory) return std::nullopt;
    directory = join_tree_path(directory, name);
    start = slash + 1;
  }
}

std::vector<ManifestFile> render_one(FileTree& tree, const std::string& directory, const HelmRelease& release,
                                     const ChartOptions& options) {
  std::string display = tree.display(directory);
  ChartRendering rendering;
  rendering.display = display;
  rendering.release_name = release.release_name.empty()
                               ? chart_name(tree.read(join_tree_path(directory, k_chart_file_name)),
                                            tree.display(join_tree_path(directory, k_chart_file_name)))
                               : release.release_name;
  rendering.namespace_name =
      release.namespace_name.empty() ? options.settings.default_namespace : release.namespace_name;
  rendering.kube_version = release.kube_version;
  rendering.api_versions = release.api_versions;
  // Paths on disk only now: a commit is written out once, on the first need.
  for (const auto& values : release.values_files)
    rendering.values_files.push_back(tree.on_disk(values));
  rendering.chart_directory = tree.on_disk(directory);
  std::string output = options.render(rendering);
  return manifests_from_helm_output(
      output, {display, rendering.release_name, release.skip_hooks, options.on_warning});
}

// An entry's paths as tree paths, checked to exist: the chart a directory with a Chart.yaml, each values file
// a file.
HelmRelease resolved(const FileTree& tree, const std::string& root, HelmRelease release) {
  const std::string& at = release.declared_at;
  release.chart = resolve_tree_path(root, release.chart, at, "chart");
  if (entry_kind(tree, join_tree_path(release.chart, k_chart_file_name)) != FileTree::Kind::file)
    invalid_entry(
        at, "chart",
        fmt::format("{} is not a Helm chart (it has no {})", tree.display(release.chart), k_chart_file_name));
  for (auto& values : release.values_files) {
    values = resolve_tree_path(root, values, at, "valuesFiles");
    if (entry_kind(tree, values) != FileTree::Kind::file)
      invalid_entry(at, "valuesFiles", fmt::format("{} is not a file", tree.display(values)));
  }
  return release;
}

}  // namespace

std::string resolve_tree_path(const std::string& root, const std::string& relative,
                              const std::string& declared_at, const std::string& field) {
  if (relative.empty()) invalid_entry(declared_at, field, "must not be empty");
  if (relative.starts_with('/'))
    invalid_entry(declared_at, field, fmt::format("\"{}\" must be relative to the source's path", relative));
  std::string path =
      std::filesystem::path(join_tree_path(root, relative)).lexically_normal().generic_string();
  while (path.ends_with('/'))
    path.pop_back();
  if (path == ".") path.clear();
  if (path == ".." || path.starts_with("../"))
    invalid_entry(
        declared_at, field,
        fmt::format("\"{}\" leaves the repository (or, outside git, the directory read)", relative));
  return path;
}

std::vector<ManifestFile> render_charts(FileTree& tree, const std::string& root,
                                        std::vector<ManifestFile> files, const std::vector<FoundChart>& found,
                                        const ChartOptions& options) {
  std::vector<HelmRelease> entries;
  for (const auto& release : options.settings.releases)
    entries.push_back(resolved(tree, root, release));
  auto append = [](std::vector<ManifestFile>& to, std::vector<ManifestFile> more) {
    to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  // A found chart is rendered as the entries naming it say (one chart may be several releases), else with its
  // own values.
  std::map<std::size_t, std::vector<ManifestFile>> renderings;  // by placeholder index
  for (const auto& chart : found) {
    auto& rendering = renderings[chart.index];
    bool named = false;
    for (const auto& entry : entries) {
      if (entry.chart != chart.directory) continue;
      named = true;
      append(rendering, render_one(tree, chart.directory, entry, options));
    }
    if (!named) append(rendering, render_one(tree, chart.directory, HelmRelease{}, options));
  }
  // A values file next to the opctl.yaml that names it is helm's input, not a manifest.
  std::set<std::string> values_files;
  for (const auto& entry : entries)
    for (const auto& values : entry.values_files)
      values_files.insert(tree.display(values));
  std::vector<ManifestFile> out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto rendering = renderings.find(i);
    if (rendering != renderings.end())
      append(out, std::move(rendering->second));
    else if (files[i].rendered || !values_files.contains(files[i].path))
      out.push_back(std::move(files[i]));
  }
  for (const auto& entry : entries) {
    bool walked = std::any_of(found.begin(), found.end(),
                              [&](const auto& chart) { return chart.directory == entry.chart; });
    if (!walked) append(out, render_one(tree, entry.chart, entry, options));
  }
  return out;
}

}  // namespace opctl::source
