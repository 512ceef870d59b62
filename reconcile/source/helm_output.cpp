#include "source/helm_output.hpp"

#include <fmt/format.h>

#include <sstream>

#include "model/error.hpp"
#include "model/yaml_document.hpp"

namespace opctl::source {

namespace {

constexpr std::string_view k_source_comment = "# Source: ";

bool is_document_separator(const std::string& line) {
  return line == "---" || line.starts_with("--- ");
}

std::string hook_message(const std::string& hook) {
  return fmt::format(
      "a Helm hook ({}: {}) is not supported: opctl applies a chart's objects as one set and never runs a "
      "hook at its moment of an install, upgrade or delete; set skipHooks: true on the chart's helm: entry "
      "in opctl.yaml to leave its hooks out, or remove the annotation to apply the object as an ordinary one",
      k_helm_hook_annotation, hook);
}

}  // namespace

std::vector<RenderedTemplate> split_helm_output(const std::string& output) {
  std::vector<RenderedTemplate> templates;
  std::istringstream lines(output);
  RenderedTemplate current;
  auto flush = [&] {
    if (current.text.find_first_not_of(" \t\n-") != std::string::npos)
      templates.push_back(std::move(current));
    current = {};
  };
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(k_source_comment)) {
      flush();
      current.source = line.substr(k_source_comment.size());
      continue;
    }
    // Helm writes "---" before each "# Source:"; it ends the previous document, not part of it.
    if (is_document_separator(line)) {
      flush();
      continue;
    }
    current.text += line + "\n";
  }
  flush();
  return templates;
}

std::string template_display(const std::string& chart_display, const std::string& source,
                             const std::string& release_name) {
  auto slash = source.find('/');
  std::string below_chart = slash == std::string::npos ? source : source.substr(slash + 1);
  std::string path = below_chart.empty() ? chart_display : chart_display + "/" + below_chart;
  return fmt::format("{} (helm release {})", path, release_name);
}

std::optional<HelmHook> find_helm_hook(const std::string& text, const std::string& display) {
  for (const auto& document : model::parse_yaml_documents(text, display)) {
    const auto& value = document.value;
    if (!value.is_object() || !value.contains("metadata") || !value["metadata"].is_object()) continue;
    const auto& metadata = value["metadata"];
    if (!metadata.contains("annotations") || !metadata["annotations"].is_object()) continue;
    const auto& annotations = metadata["annotations"];
    if (!annotations.contains(k_helm_hook_annotation)) continue;
    std::string pointer = "/metadata/annotations/" + model::escape_pointer_token(k_helm_hook_annotation);
    auto line = document.field_lines.find(pointer);
    const auto& hook = annotations[k_helm_hook_annotation];
    return HelmHook{display, line == document.field_lines.end() ? document.line : line->second,
                    hook.is_string() ? hook.get<std::string>() : hook.dump()};
  }
  return std::nullopt;
}

std::vector<ManifestFile> manifests_from_helm_output(const std::string& output,
                                                     const HelmOutputOptions& options) {
  std::vector<ManifestFile> manifests;
  std::vector<Problem> hooks;
  for (auto& rendered : split_helm_output(output)) {
    std::string display = template_display(options.chart_display, rendered.source, options.release_name);
    if (auto hook = find_helm_hook(rendered.text, display)) {
      if (!options.skip_hooks) {
        hooks.push_back({hook->file, hook->line,
                         std::string("metadata.annotations.") + k_helm_hook_annotation,
                         hook_message(hook->hook)});
      } else if (options.on_warning) {
        options.on_warning(fmt::format("{}:{}: Helm hook ({}) left out, as skipHooks asks", hook->file,
                                       hook->line, hook->hook));
      }
      continue;
    }
    manifests.push_back({std::move(display), std::move(rendered.text), true});
  }
  if (!hooks.empty()) throw InvalidInputError(std::move(hooks));
  return manifests;
}

}  // namespace opctl::source
