// opctl validate: load the manifests and report every problem, offline or
// with the cluster's OpenAPI schemas. Nothing is sent that could change the cluster.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include "cluster_connection.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "config/run_config.hpp"
#include "exit_codes.hpp"
#include "kind_defaults.hpp"
#include "kinds/kind_registry.hpp"
#include "kinds/kind_validators.hpp"
#include "kube/api_error.hpp"
#include "pass_progress.hpp"
#include "pass_validation.hpp"
#include "plan/selection.hpp"
#include "source/desired_source.hpp"
#include "structured_output.hpp"
#include "terminal.hpp"
#include "validate/kind_validator.hpp"
#include "validate/live_crds.hpp"
#include "validate/manifest_loading.hpp"
#include "validate/schema_source.hpp"
#include "validate/validation.hpp"

namespace opctl::cli {
namespace {

using validate::Finding;

struct ValidateCommandOptions {
  CommonOptions common;
  bool offline = false;
  std::string schema_dir;
  std::string output = "text";
};

// Where schemas and scopes come from for this run, and what keeps them alive.
struct SchemaWiring {
  std::optional<ClusterConnection> connection;
  std::unique_ptr<validate::SchemaSource> source;
  kube::RestMapper* mapper = nullptr;  // the cluster's discovery; nullptr offline
  std::string default_namespace;
  std::vector<std::string> notes;
};

// The cluster, when one is configured and answers; otherwise a note says why
// schema checks are skipped. A cluster that answers with an error is an error.
void wire_cluster(const ValidateCommandOptions& options, SchemaWiring& wiring) {
  try {
    wiring.connection = connect(options.common);
  } catch (const Error& error) {
    if (!options.common.kubeconfig.empty() || !options.common.context.empty()) throw;
    wiring.notes.push_back(
        fmt::format("schema checks skipped: {}; give --schema-dir DIR to check offline", error.what()));
    return;
  }
  auto source =
      std::make_unique<validate::ClusterSchemaSource>(*wiring.connection->transport, schema_cache_dir());
  try {
    source->load_index();
  } catch (const kube::ApiError& error) {
    if (error.status().reason != kube::ApiReason::unreachable) throw;
    wiring.notes.push_back(fmt::format("schema checks skipped: {}", error.what()));
    wiring.connection.reset();
    return;
  }
  wiring.source = std::move(source);
  wiring.mapper = wiring.connection->mapper.get();
  wiring.default_namespace = wiring.connection->default_namespace(options.common);
}

SchemaWiring wire_schemas(const ValidateCommandOptions& options) {
  SchemaWiring wiring;
  wiring.default_namespace = options.common.namespace_name;
  if (!options.schema_dir.empty()) {
    wiring.source = std::make_unique<validate::DirectorySchemaSource>(options.schema_dir);
  } else if (options.offline) {
    wiring.notes.push_back("schema checks skipped: --offline without --schema-dir");
  } else {
    wire_cluster(options, wiring);
  }
  return wiring;
}

// The manifests of the source, parsed leniently; an opctl.yaml among them is
// checked as a config (and its settings applied) instead.
validate::LoadedManifests load_source(ValidateCommandOptions& options) {
  auto files = source::load_desired_source(options.common.source).files;
  std::vector<source::ManifestFile> manifests;
  std::vector<Problem> config_problems;
  for (auto& file : files) {
    if (!config::is_config_file_path(file.path)) {
      manifests.push_back(std::move(file));
      continue;
    }
    try {
      apply_found_config(options.common, config::parse_run_config(file.content, file.path));
    } catch (const InvalidInputError& error) {
      config_problems.insert(config_problems.end(), error.problems().begin(), error.problems().end());
    }
  }
  auto loaded =
      validate::load_manifests(source::decrypt_sops_files(std::move(manifests), options.common.sops));
  loaded.problems.insert(loaded.problems.end(), config_problems.begin(), config_problems.end());
  return loaded;
}

validate::ValidationReport run_checks(ValidateCommandOptions& options) {
  validate::LoadedManifests loaded;
  try {
    loaded = load_source(options);
  } catch (const InvalidInputError& error) {
    validate::ValidationReport report;
    validate::add_errors(report, error.problems());
    return report;
  }
  SchemaWiring wiring = wire_schemas(options);
  // The custom kinds (built-in and opctl.yaml's hook kinds) check their own specs.
  auto registry = run_registry(options.common);
  auto validators = kinds::kind_validators(registry);
  validate::ValidateOptions validate_options;
  validate_options.known_crds = registry.custom_resource_definitions();
  validate_options.schemas = wiring.source.get();
  validate_options.default_namespace = wiring.default_namespace;
  for (const auto& validator : validators)
    validate_options.kind_validators.push_back(validator.get());
  if (wiring.mapper != nullptr) {
    validate_options.cluster_scope = [mapper = wiring.mapper](const model::GroupVersionKind& gvk) {
      auto found = mapper->find(gvk);
      return found ? std::optional<bool>(found->namespaced) : std::nullopt;
    };
    validate_options.live_crd = validate::live_crd_lookup(*wiring.connection->transport, *wiring.mapper);
  }
  // -l: every file is still read (a syntax error anywhere counts), the selected objects checked.
  if (const auto& selector = options.common.label_selector; !selector.empty())
    loaded.objects = plan::selected_objects(loaded.objects, selector);
  auto report = validate::validate_objects(std::move(loaded.objects), validate_options);
  validate::add_errors(report, loaded.problems);
  validate::sort_findings(report);
  report.notes.insert(report.notes.begin(), wiring.notes.begin(), wiring.notes.end());
  return report;
}

void render_text(const validate::ValidationReport& report, const ValidateCommandOptions& options) {
  Palette palette{use_color(options.common.no_color)};
  for (const auto& finding : report.findings) {
    bool error = finding.severity == Finding::Severity::error;
    if (options.common.quiet && !error) continue;
    std::cout << (error ? palette.red("error:") : palette.yellow("warning:")) << " "
              << finding.problem.to_string() << "\n";
  }
  if (!options.common.quiet)
    for (const auto& note : report.notes)
      std::cerr << palette.dim("note: " + note) << "\n";
  std::string summary =
      fmt::format("{} objects, {} errors, {} warnings", report.objects,
                  report.count(Finding::Severity::error), report.count(Finding::Severity::warning));
  std::cout << (report.valid() ? summary : palette.bold(summary)) << "\n";
}

int run_validate(ValidateCommandOptions& options) {
  FetchProgress fetching(options.common);
  auto report = run_checks(options);
  if (is_structured(options.output)) {
    std::cout << render_structured(validate::report_to_json(report), options.output);
  } else {
    render_text(report, options);
  }
  return report.valid() ? k_exit_ok : k_exit_invalid_input;
}

}  // namespace

void register_validate(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<ValidateCommandOptions>();
  auto* command =
      app.add_subcommand("validate", "Validate manifests offline (and against the cluster's schemas)");
  command->footer(
      "Schemas come from the cluster's OpenAPI v3 when one is configured and reachable, from --schema-dir "
      "(files named like api__v1.json, apis__apps__v1.json, saved with kubectl get --raw "
      "/openapi/v3/apis/apps/v1), "
      "or are skipped with a note.\n\n"
      "Exit codes: 0 valid (warnings allowed), 2 invalid, 3 cluster or API error.\n\n"
      "Examples:\n"
      "  opctl validate --path manifests-example/\n"
      "  opctl validate --path deploy/ --schema-dir schemas/ -o json\n");
  add_source_flags(*command, options->common);
  add_cluster_flags(*command, options->common);
  add_kind_flags(*command, options->common);
  command->add_flag("--offline", options->offline,
                    "Never contact a cluster (schemas only from --schema-dir)");
  command
      ->add_option(
          "--schema-dir", options->schema_dir,
          "Directory of OpenAPI v3 documents, one per group-version (api__v1.json, apis__apps__v1.json); "
          "used instead of the cluster's")
      ->check(CLI::ExistingDirectory);
  add_selector_flag(*command, options->common,
                    "check only the objects it selects (every file is still read and must parse)");
  command->add_option("-o,--output", options->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  add_output_flags(*command, options->common);
  add_progress_flag(*command, options->common);
  command->callback([options, &action] {
    finish_source_options(options->common);
    action = [options] { return run_validate(*options); };
  });
}

}  // namespace opctl::cli
