#include "source/helm_chart.hpp"

#include <cstdlib>
#include <sstream>

#include "model/error.hpp"
#include "model/yaml_document.hpp"
#include "process/child_process.hpp"
#include "source/kustomize.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void helm_failed(const std::string& display, const std::string& why) {
  throw InvalidInputError({Problem{display, 0, "", why}});
}

// helm's stderr on one line, with the temporary directory a git commit was
// written to replaced by the chart's name as the user knows it.
std::string summarise_stderr(std::string text, const ChartRendering& rendering) {
  const std::string on_disk = rendering.chart_directory.string();
  for (auto at = text.find(on_disk); at != std::string::npos;
       at = text.find(on_disk, at + rendering.display.size()))
    text.replace(at, on_disk.size(), rendering.display);
  std::istringstream lines(text);
  std::string summary;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) summary += (summary.empty() ? "" : "; ") + line;
  return summary.empty() ? "no message" : summary;
}

}  // namespace

std::vector<std::string> helm_template_arguments(const ChartRendering& rendering) {
  std::vector<std::string> arguments = {
      "template",
      rendering.release_name,
      rendering.chart_directory.string(),
      "--namespace",
      rendering.namespace_name.empty() ? "default" : rendering.namespace_name,
      "--include-crds",
      "--skip-tests"};
  for (const auto& values : rendering.values_files)
    arguments.insert(arguments.end(), {"--values", values.string()});
  if (!rendering.kube_version.empty())
    arguments.insert(arguments.end(), {"--kube-version", rendering.kube_version});
  for (const auto& api_version : rendering.api_versions)
    arguments.insert(arguments.end(), {"--api-versions", api_version});
  return arguments;
}

std::string chart_name(std::string_view chart_yaml, const std::string& display) {
  auto documents = model::parse_yaml_documents(chart_yaml, display);
  if (documents.empty() || !documents.front().value.is_object() ||
      !documents.front().value.contains("name") || !documents.front().value["name"].is_string() ||
      documents.front().value["name"].get<std::string>().empty())
    throw InvalidInputError({Problem{display, 1, "name", "a Chart.yaml needs a name"}});
  return documents.front().value["name"].get<std::string>();
}

std::string render_helm_chart(const ChartRendering& rendering) {
  const char* path = std::getenv("PATH");
  auto helm = find_program("helm", path ? path : "/usr/local/bin:/usr/bin:/bin");
  if (!helm)
    helm_failed(
        rendering.display,
        "this directory is a Helm chart, and rendering it needs helm (Helm 3) on PATH (opctl runs \"helm "
        "template\"); install Helm 3 (https://helm.sh/docs/intro/install/) or commit the rendered manifests");
  std::vector<std::string> argv = {helm->string()};
  auto arguments = helm_template_arguments(rendering);
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  // A chart never reaches the network through opctl: helm is given a directory (never a repository or
  // an OCI reference), no --dependency-update, and no --validate, so it needs no cluster either.
  process::ProcessResult result =
      process::run_process(argv, {.extra_env = {}, .timeout = std::chrono::seconds(120), .input = ""});
  if (result.timed_out) helm_failed(rendering.display, "helm template did not finish within 120s");
  if (result.exit_code != 0)
    helm_failed(rendering.display, "helm template failed: " + summarise_stderr(result.err, rendering));
  return result.out;
}

}  // namespace opctl::source
