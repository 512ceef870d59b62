// The Helm charts of a tree of files: each directory the walk found holding
// a Chart.yaml, and each chart a helm: entry of opctl.yaml names (which may
// lie outside the path read, with values from anywhere in the repository),
// rendered into manifests that name their templates.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "source/helm_chart.hpp"
#include "source/manifest_file.hpp"
#include "source/manifest_tree.hpp"

namespace opctl::source {

// A chart directory the walk found: a placeholder at `index` of the files.
struct FoundChart {
  std::size_t index = 0;
  std::string directory;  // tree path
};

struct ChartOptions {
  ChartRenderer render;
  HelmSettings settings;
  std::function<void(const std::string&)> on_warning;
};

// `relative` (a helm: entry's path) from the tree directory `root`, as a tree
// path: "envs/prod" + "../../charts/web" -> "charts/web". Throws
// InvalidInputError naming `declared_at` and `field` when it leaves the tree.
std::string resolve_tree_path(const std::string& root, const std::string& relative,
                              const std::string& declared_at, const std::string& field);

// The files with each found chart's placeholder replaced by its rendering
// (or by the rendering of the helm: entry naming that directory, whose
// settings win), and the renderings of the other entries appended. The files
// an entry names as values files are left out: helm reads them, not opctl.
std::vector<ManifestFile> render_charts(FileTree& tree, const std::string& root,
                                        std::vector<ManifestFile> files, const std::vector<FoundChart>& found,
                                        const ChartOptions& options);

}  // namespace opctl::source
