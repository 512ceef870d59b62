// What `helm template` prints, taken apart: one manifest per "# Source:"
// comment, so every object names the template that rendered it, and the
// chart's hooks, which opctl does not run.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "source/manifest_file.hpp"

namespace opctl::source {

// The annotation that makes an object a Helm hook rather than part of the release.
inline constexpr const char* k_helm_hook_annotation = "helm.sh/hook";

// One document of helm's output and the template it came from.
struct RenderedTemplate {
  std::string source;  // as helm names it: "web/templates/deployment.yaml"; empty before the first comment
  std::string text;    // the document, without its "---" and "# Source:" lines
};

// Splits helm's output at its "# Source: <chart>/<path>" comments.
std::vector<RenderedTemplate> split_helm_output(const std::string& output);

// "web/templates/a.yaml" below the chart at `chart_display` ("charts/web"):
// "charts/web/templates/a.yaml (helm release R)". The first part of helm's
// path is the chart's name, which need not be its directory's.
std::string template_display(const std::string& chart_display, const std::string& source,
                             const std::string& release_name);

struct HelmHook {
  std::string file;  // the template's display
  int line = 0;
  std::string hook;  // the annotation's value: "pre-install,pre-upgrade"
};

// The hook annotation of the (first) object in `text`, when it has one.
std::optional<HelmHook> find_helm_hook(const std::string& text, const std::string& display);

struct HelmOutputOptions {
  std::string chart_display;
  std::string release_name;
  // false: any hook is an input error; true: hooks are left out, each told to on_warning.
  bool skip_hooks = false;
  std::function<void(const std::string&)> on_warning;
};

// The manifests of a release as opctl reads them: one per rendered template,
// hooks refused (InvalidInputError listing every one) or left out.
std::vector<ManifestFile> manifests_from_helm_output(const std::string& output,
                                                     const HelmOutputOptions& options);

}  // namespace opctl::source
