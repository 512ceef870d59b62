#include <fmt/format.h>

#include <iostream>

#include "apply/apply_pass.hpp"
#include "cluster_connection.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "desired_set.hpp"
#include "terminal.hpp"

namespace opctl::cli {
namespace {

std::string colored_action(const Palette& palette, apply::Action action) {
  std::string text = apply::to_string(action);
  switch (action) {
    case apply::Action::created: return palette.green(text);
    case apply::Action::configured: return palette.yellow(text);
    case apply::Action::unchanged: return palette.dim(text);
    case apply::Action::failed: return palette.red(text);
  }
  return text;
}

int run_reconcile(const CommonOptions& options) {
  // Everything is loaded and validated before the first request that could change the cluster.
  DesiredSet desired = load_desired_set(options);
  ClusterConnection& connection = desired.connection;

  Palette palette{use_color(options.no_color)};
  apply::PassOptions pass;
  pass.default_namespace = connection.default_namespace(options);
  pass.apply.force = options.force_conflicts;
  pass.on_outcome = [&](const apply::ObjectOutcome& outcome) {
    bool failed = outcome.action == apply::Action::failed;
    if (options.quiet && !failed) return;
    std::string line = fmt::format("{} {}", outcome.key.to_string(), colored_action(palette, outcome.action));
    if (failed) line += ": " + outcome.message;
    (failed ? std::cerr : std::cout) << line << "\n";
  };
  auto report = apply::run_apply_pass(*connection.client, std::move(desired.objects), pass);
  std::cout << fmt::format("{} objects: {} created, {} configured, {} unchanged, {} failed ({:.1f}s)\n",
                           report.outcomes.size(), report.count(apply::Action::created),
                           report.count(apply::Action::configured), report.count(apply::Action::unchanged),
                           report.count(apply::Action::failed), report.duration.count() / 1000.0);
  return report.ok() ? k_exit_ok : k_exit_cluster_error;
}

}  // namespace

void register_reconcile(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<CommonOptions>();
  auto* command = app.add_subcommand("reconcile", "Run one reconcile pass: load, validate and server-side apply");
  command->footer(
      "Examples:\n"
      "  opctl reconcile --path manifests-example/\n"
      "  opctl reconcile --path deploy/ --context staging -n shop\n");
  add_source_flags(*command, *options);
  add_cluster_flags(*command, *options);
  command->add_flag("--force-conflicts", options->force_conflicts,
                    "Take ownership of fields another field manager owns");
  add_output_flags(*command, *options);
  command->callback([options, &action] {
    finish_source_options(*options);
    action = [options] { return run_reconcile(*options); };
  });
}

}  // namespace opctl::cli
