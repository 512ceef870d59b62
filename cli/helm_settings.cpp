#include "helm_settings.hpp"

#include <fmt/format.h>

namespace opctl::cli {

std::vector<source::HelmRelease> helm_releases_of(const config::RunConfig& config) {
  std::vector<source::HelmRelease> releases;
  for (const auto& chart : config.helm)
    releases.push_back({chart.chart, chart.release_name, chart.namespace_name, chart.values_files,
                        chart.kube_version, chart.api_versions, chart.skip_hooks,
                        fmt::format("{}:{}", config.file, chart.line)});
  return releases;
}

source::HelmSettings helm_settings_of(const CommonOptions& options,
                                      const std::vector<source::ManifestFile>& files,
                                      const std::function<bool(const std::string&)>& is_config) {
  source::HelmSettings settings;
  settings.default_namespace = options.namespace_name;  // -n, or the namespace of -f's config
  if (!options.config.file.empty()) {
    settings.releases = helm_releases_of(options.config);
    return settings;
  }
  // More than one opctl.yaml is an error load_manifests reports; none: no entries.
  const source::ManifestFile* found = nullptr;
  for (const auto& file : files) {
    if (!is_config(file.path)) continue;
    if (found != nullptr) return settings;
    found = &file;
  }
  if (found == nullptr) return settings;
  auto config = config::parse_run_config(found->content, found->path);
  settings.releases = helm_releases_of(config);
  if (settings.default_namespace.empty()) settings.default_namespace = config.default_namespace.value_or("");
  return settings;
}

}  // namespace opctl::cli
