// Helm charts, rendered by `helm template` (opctl does not embed Helm), never
// with the network: no dependency update, no repository, no cluster (helm's
// `lookup` finds nothing, capabilities are helm's defaults unless a helm:
// entry names them). With no helm on PATH a chart is an input error.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace opctl::source {

// The file that makes a directory a chart.
inline constexpr const char* k_chart_file_name = "Chart.yaml";

// A helm: entry of opctl.yaml: paths relative to the source's path, which
// may climb with ".." but not out of the repository (or the directory read).
struct HelmRelease {
  std::string chart;
  std::string release_name;    // empty: the chart's name
  std::string namespace_name;  // empty: the run's default namespace
  std::vector<std::string> values_files;
  std::string kube_version;               // --kube-version; empty: helm's default
  std::vector<std::string> api_versions;  // --api-versions
  bool skip_hooks = false;
  std::string declared_at;  // "opctl.yaml:12", for messages
};

// What the walk's charts and a config's helm: entries need from the run.
struct HelmSettings {
  std::vector<HelmRelease> releases;
  std::string default_namespace;  // .Release.Namespace of a chart found by the walk; empty: "default"
};

// One `helm template` run, with its paths on disk.
struct ChartRendering {
  std::filesystem::path chart_directory;
  std::string display;  // the chart as the user knows it: "charts/web", "repo@abc1234:charts/web"
  std::string release_name;
  std::string namespace_name;  // empty: "default"
  std::vector<std::filesystem::path> values_files;
  std::string kube_version;
  std::vector<std::string> api_versions;
};

// helm's arguments after the program name: template, the release, the chart,
// the CRDs of crds/ included (helm install creates them too), tests left out.
std::vector<std::string> helm_template_arguments(const ChartRendering& rendering);

// metadata `name` of a Chart.yaml; throws InvalidInputError naming `display`
// when it has none.
std::string chart_name(std::string_view chart_yaml, const std::string& display);

// How a chart becomes text: render_helm_chart, or a test's stand-in.
using ChartRenderer = std::function<std::string(const ChartRendering&)>;

// Runs `helm template` and returns what it prints. Throws InvalidInputError
// naming the chart when helm is not on PATH or fails.
std::string render_helm_chart(const ChartRendering& rendering);

}  // namespace opctl::source
