#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "common_options.hpp"
#include "desired_set.hpp"
#include "exit_codes.hpp"

namespace opctl::cli {
namespace {

struct ValidateOptions {
  CommonOptions common;
  bool offline = false;
};

// Offline validation: YAML syntax, UTF-8, size, identity, labels and
// annotations, duplicates, and opctl.yaml; every problem at once.
int run_validate(ValidateOptions& options) {
  finish_source_options(options.common);
  auto [revision, objects] = load_manifests(options.common);
  if (!options.common.quiet)
    std::cout << fmt::format("{} objects valid ({})\n", objects.size(),
                             revision.annotation().empty() ? options.common.source.path : revision.annotation());
  return k_exit_ok;
}

}  // namespace

void register_validate(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<ValidateOptions>();
  auto* command = app.add_subcommand("validate", "Validate manifests offline, without a cluster");
  command->footer(
      "Exit codes: 0 valid, 2 invalid (every problem is listed as file:line: field: message).\n\n"
      "Examples:\n"
      "  opctl validate --path manifests-example/\n"
      "  opctl validate --repo https://git.example/ops.git --ref main --path prod\n");
  add_source_flags(*command, options->common);
  command->add_flag("--offline", options->offline, "Never contact a cluster (validation is offline today)");
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_validate(*options); }; });
}

}  // namespace opctl::cli
