// Desired state from a plain directory (CI on a checkout, a laptop).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "source/helm_chart.hpp"
#include "source/manifest_file.hpp"

namespace opctl::source {

// Every *.yaml, *.yml and *.json below `root`, recursively, sorted by path;
// hidden files and directories (.git) and paths excluded by .opctlignore (at
// `root`, and at the root of the git work tree `root` lies in) are skipped, and
// a directory with a kustomization is rendered by `kubectl kustomize`. Paths in
// the result are `root` joined with the relative path, as the user would type
// them. `root` may also be a single file. Symbolic links below `root` are not
// followed, as git does not follow them in a tree: each is skipped and passed
// to `on_warning`. Throws InvalidInputError when `root` is missing or not a
// directory.
// `helm_settings_of` gives the helm: entries once the walk is done (see SourceOptions).
std::vector<ManifestFile> read_directory(
    const std::filesystem::path& root, const std::function<void(const std::string&)>& on_warning = {},
    const std::function<HelmSettings(const std::vector<ManifestFile>&)>& helm_settings_of = {});

}  // namespace opctl::source
