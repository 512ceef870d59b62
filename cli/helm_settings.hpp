// Which helm: entries apply to a run and the namespace charts render into:
// from -f (or the directory's own opctl.yaml), else from the opctl.yaml
// found among the files read, as every other setting.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common_options.hpp"
#include "source/helm_chart.hpp"
#include "source/manifest_file.hpp"

namespace opctl::cli {

// The config's helm: entries as the source reads them, each naming where it was declared.
std::vector<source::HelmRelease> helm_releases_of(const config::RunConfig& config);

// The helm: entries and default namespace for a run whose source holds
// `files`, of which those `is_config` accepts are opctl.yaml files.
source::HelmSettings helm_settings_of(
    const CommonOptions& options, const std::vector<source::ManifestFile>& files,
    const std::function<bool(const std::string&)>& is_config = config::is_config_file_path);

}  // namespace opctl::cli
