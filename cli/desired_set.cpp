#include "desired_set.hpp"

#include <algorithm>

#include "apply/ownership_marks.hpp"
#include "config_values.hpp"
#include "helm_settings.hpp"
#include "plan/kind_scopes.hpp"
#include "source/manifest_parser.hpp"

namespace opctl::cli {

std::pair<source::SourceRevision, std::vector<model::Object>> load_manifests(CommonOptions& options) {
  source::SourceOptions source_options = options.source;
  // Bound again to these options: a copy of CommonOptions (diff --base's base
  // revision) still carries the hook finish_source_options bound to the original.
  source_options.helm_settings_of = [&options](const auto& files) {
    return helm_settings_of(options, files);
  };
  auto desired = source::load_desired_source(source_options);
  std::vector<source::ManifestFile> manifests;
  std::vector<const source::ManifestFile*> configs;
  for (auto& file : desired.files) {
    if (config::is_config_file_path(file.path)) {
      configs.push_back(&file);
    } else {
      manifests.push_back(std::move(file));  // not copied: a big set's text twice over
    }
  }
  if (configs.size() > 1)
    throw InvalidInputError({Problem{configs[1]->path, 0, "",
                                     "more than one opctl.yaml in the source (also " + configs[0]->path +
                                         "); point --path at one environment or use -f"}});
  if (configs.size() == 1)
    apply_found_config(options, config::parse_run_config(configs[0]->content, configs[0]->path));
  options.source_config_checked = true;
  return {desired.revision,
          source::parse_manifests(source::decrypt_sops_files(std::move(manifests), options.sops))};
}

void forget_field_lines(std::vector<model::Object>& objects) {
  for (auto& object : objects)
    object.forget_field_lines();
}

DesiredSet load_desired_set(CommonOptions& options) {
  auto [revision, objects] = load_manifests(options);
  return connect_desired_set(options, std::move(revision), std::move(objects));
}

DesiredSet connect_desired_set(CommonOptions& options, source::SourceRevision revision,
                               std::vector<model::Object> objects) {
  DesiredSet set{std::move(revision), std::move(objects), connect(options)};
  resolve_desired_set(options, set);
  return set;
}

void resolve_desired_set(const CommonOptions& options, DesiredSet& set) {
  kube::RestMapper& mapper = *set.connection.mapper;
  auto served = [&mapper](const model::GroupVersionKind& gvk) -> std::optional<bool> {
    auto info = mapper.find(gvk);
    return info ? std::optional<bool>(info->namespaced) : std::nullopt;
  };
  plan::resolve_scopes(served, set.objects, set.connection.default_namespace(options));
  // Defaulting namespaces can make two objects the same one.
  if (auto duplicates = source::duplicate_problems(set.objects); !duplicates.empty())
    throw InvalidInputError(std::move(duplicates));
  apply::mark_managed(set.objects, set.revision.annotation(), applyset_parent_of(options.config).id());
}

}  // namespace opctl::cli
