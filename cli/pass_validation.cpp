#include "pass_validation.hpp"

#include <cstdlib>
#include <iostream>

#include "kind_defaults.hpp"
#include "kinds/kind_registry.hpp"
#include "kinds/kind_validators.hpp"
#include "validate/kind_validator.hpp"
#include "validate/live_crds.hpp"
#include "validate/schema_source.hpp"
#include "validate/validation.hpp"

namespace opctl::cli {

std::string schema_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] != '\0')
    return std::string(xdg) + "/opctl/openapi";
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0')
    return std::string(home) + "/.cache/opctl/openapi";
  return "";
}

void validate_for_pass(const CommonOptions& options, DesiredSet& desired) {
  validate::ClusterSchemaSource schemas(*desired.connection.transport, schema_cache_dir());
  schemas.load_index();
  auto registry = run_registry(options);
  auto validators = kinds::kind_validators(registry);
  validate::ValidateOptions validate_options;
  validate_options.known_crds = registry.custom_resource_definitions();
  validate_options.schemas = &schemas;
  validate_options.default_namespace = desired.connection.default_namespace(options);
  for (const auto& validator : validators)
    validate_options.kind_validators.push_back(validator.get());
  validate_options.cluster_scope = [mapper =
                                        desired.connection.mapper.get()](const model::GroupVersionKind& gvk) {
    auto found = mapper->find(gvk);
    return found ? std::optional<bool>(found->namespaced) : std::nullopt;
  };
  validate_options.live_crd =
      validate::live_crd_lookup(*desired.connection.transport, *desired.connection.mapper);
  // In place: resolve_scopes (connect_desired_set) already gave every namespaced object the same
  // default namespace, so validation has none left to default and changes nothing.
  auto report = validate::validate_in_place(desired.objects, validate_options);
  validate::sort_findings(report);
  std::vector<Problem> errors;
  for (const auto& finding : report.findings) {
    if (finding.severity == validate::Finding::Severity::error) errors.push_back(finding.problem);
    // A warning about the cluster (no file) says how the set was checked.
    else if (finding.problem.file.empty() && !options.quiet)
      std::cerr << "warning: " << finding.problem.to_string() << "\n";
  }
  if (!errors.empty()) throw InvalidInputError(std::move(errors));
}

}  // namespace opctl::cli
