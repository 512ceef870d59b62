#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <optional>

#include "apply/apply_pass.hpp"
#include "apply/home_namespace.hpp"
#include "apply/lease_lock.hpp"
#include "build_info.hpp"
#include "cluster_connection.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "config_values.hpp"
#include "custom_kinds.hpp"
#include "desired_set.hpp"
#include "error_output.hpp"
#include "exit_codes.hpp"
#include "keep_running.hpp"
#include "pass_notifications.hpp"
#include "pass_progress.hpp"
#include "pass_render.hpp"
#include "pass_validation.hpp"
#include "progress.hpp"
#include "reconcile_run.hpp"
#include "report_file.hpp"
#include "run_metrics_recorder.hpp"
#include "set_lease.hpp"
#include "stop_signals.hpp"
#include "structured_output.hpp"
#include "terminal.hpp"

namespace opctl::cli {
namespace {

// The pass's options from the settings (flags over opctl.yaml, resolved by common_options) and the
// set.
apply::PassOptions pass_options(const ReconcileOptions& options, const DesiredSet& desired) {
  const CommonOptions& common = options.common;
  const config::RunConfig& config = common.config;
  apply::PassOptions pass;
  pass.timeout = pass_timeout(common);
  pass.apply.force = common.force_conflicts;
  pass.dry_run = options.dry_run;
  pass.prune = common.prune;
  pass.prune_namespaces = common.prune_namespaces;
  pass.prune_crds = common.prune_crds;
  pass.prune_data = common.prune_data;
  pass.prune_limits = prune_limits_of(common);
  // An unnamed set never prunes, so its source is neither checked nor recorded (no warning for every
  // directory).
  pass.source = common.set_named ? source::set_source_identity(common.source) : "";
  pass.take_over = common.take_over;
  pass.delete_propagation = common.delete_propagation;
  pass.wait = common.wait;
  for (const auto& rule : config.health)
    if (rule.skip) pass.skip_health.emplace_back(rule.group, rule.kind);
  pass.ignore_rules = ignore_rules_of(config);
  pass.applyset = applyset_parent_of(config);
  pass.tooling = std::string("opctl/v") + k_version;
  pass.revision = desired.revision.annotation();
  return pass;
}

int exit_code_for(apply::PassResult result) {
  switch (result) {
    case apply::PassResult::succeeded:
      return k_exit_ok;
    case apply::PassResult::failed:
      return k_exit_cluster_error;
    case apply::PassResult::timed_out:
    case apply::PassResult::unhealthy:
      return k_exit_timeout;
    case apply::PassResult::interrupted:
      return k_exit_signal_base + SIGTERM;  // run_reconcile knows which
  }
  return k_exit_cluster_error;
}

// The config's Namespace first when the set creates it (it holds the Lease and
// the ApplySet parent), then the Lease; every write of the pass then checks
// (and renews) the Lease first, through the client's write gate.
std::unique_ptr<apply::LeaseLock> take_lease(const ReconcileOptions& options, DesiredSet& desired,
                                             const apply::PassOptions& pass) {
  const CommonOptions& common = options.common;
  if (options.dry_run) return nullptr;
  kube::ApiClient& client = *desired.connection.client;
  if (apply::create_home_namespace(client, desired.objects, pass.applyset, pass.apply) && !common.quiet)
    std::cerr << "created namespace " << pass.applyset.namespace_name
              << " (it holds the Lease and the ApplySet)\n";
  return lock_set(common, desired.connection, pass.applyset);
}

// The set could not be loaded: the error as every command prints it, then
// (unless this is a dry run or the set cannot be told) its custom resources
// that exist are kept running from their live spec. The exit code is the
// failure's.
int set_not_loaded(const ReconcileOptions& options, const Error& error, ClusterConnection* connection) {
  int code = print_error(error);
  if (options.dry_run) return code;
  notify_load_failure(options.common, error, [&options](const std::string& line) {
    if (!options.common.quiet) std::cerr << "warning: " << line << "\n";
  });
  const CommonOptions& common = options.common;
  if (auto why = why_not_keep_running(common); !why.empty()) {
    if (common.verbose)
      std::cerr << "opctl: the set's custom resources are not kept running: " << why << "\n";
    return code;
  }
  keep_running(common, {options.output == "text", connection});
  return code;
}

// What the pass reports as it goes: per-object lines (unchanged ones summarised per kind unless -v),
// warnings, and the live line or periodic lines of `display`. The summary lines are `unchanged`'s.
// Returns what shows the custom kinds' waits.
std::function<void(const std::string&)> report_pass_events(const ReconcileOptions& options,
                                                           apply::PassOptions& pass, std::size_t total,
                                                           ProgressDisplay& display,
                                                           UnchangedSummary& unchanged) {
  const CommonOptions& common = options.common;
  bool text = options.output == "text";
  Palette palette{use_color(common.no_color)};
  struct Counts {
    std::size_t done = 0;
    long wave = 0;
    std::size_t wave_objects = 0;
    bool applying = false;
  };
  auto counts = std::make_shared<Counts>();
  pass.events.on_outcome = [=, &common, &display, &unchanged](const apply::ObjectOutcome& outcome) {
    ++counts->done;
    if (counts->applying)
      display.show(applying_status(counts->wave, counts->wave_objects, counts->done, total));
    bool failed = outcome.action == apply::Action::failed;
    if (!text || (common.quiet && !failed)) return;
    if (!common.verbose && unchanged.absorb(outcome)) return;
    display.line(failed ? stderr : stdout, outcome_line(outcome, palette));
  };
  pass.events.on_warning = [=, &common, &display](const std::string& line) {
    if (!common.quiet) display.line(stderr, palette.yellow("warning: " + line));
  };
  pass.events.on_wave_start = [=, &display](long wave, std::size_t objects) {
    *counts = {counts->done, wave, objects, true};
    display.show(applying_status(wave, objects, counts->done, total));
  };
  pass.events.on_waiting = [=, &display](long wave, const UnhealthyObjects& unhealthy) {
    counts->applying = false;
    if (unhealthy.empty())
      display.idle();
    else
      display.show(waiting_status(wave, unhealthy, counts->done, total));
  };
  pass.events.on_prune_start = [=, &display](std::size_t candidates) {
    counts->applying = false;
    display.show(pruning_status(candidates, counts->done, total));
  };
  pass.events.on_custom_kinds_start = [=, &display] {
    counts->applying = false;
    display.show(custom_kinds_status("", counts->done, total));
  };
  return [=, &display](const std::string& waiting_for) {
    counts->applying = false;
    display.show(custom_kinds_status(waiting_for, counts->done, total));
  };
}

int run_pass(ReconcileOptions& options, RunMetricsRecorder& metrics) {
  finish_source_options(options.common);
  const CommonOptions& common = options.common;
  ProgressDisplay display(progress_settings(common));
  SourceProgress source_progress(options.common.source, display, common.quiet);
  std::pair<source::SourceRevision, std::vector<model::Object>> manifests;
  // The pin, as the set's parent records it, decides the commit loaded (set_pin_plan.hpp).
  PinPlan pin = plan_pin(options.common, options.pin);
  try {
    manifests = load_manifests(options.common);
    if (!pin.planned && common.set_named) {  // named by an opctl.yaml in the source
      pin = plan_pin(options.common, options.pin);
      if (pin.reload) manifests = load_manifests(options.common);
    }
    complete_pin_plan(pin, common, options.pin, manifests.first);
  } catch (const Error& error) {
    display.idle();
    // A rollback that cannot load its revision is the user's to fix; the set runs on as it was.
    if (error.category() == ErrorCategory::lock_held || options.pin.rollback() || options.pin.unpin) throw;
    return set_not_loaded(options, error, nullptr);
  }
  display.idle();
  require_named_set_for_prune(common);  // after an opctl.yaml inside the source was read
  // Without the cluster nothing can run: its errors are not the set's.
  DesiredSet desired{std::move(manifests.first), std::move(manifests.second), connect(options.common)};
  std::optional<CustomKinds> checked_kinds;
  try {
    resolve_desired_set(common, desired);
    validate_for_pass(common, desired);
    checked_kinds.emplace(common, desired.objects, [&](const std::string& line) {
      if (!common.quiet) std::cerr << "warning: " << line << "\n";
    });
  } catch (const Error& error) {
    if (error.category() == ErrorCategory::lock_held) throw;
    return set_not_loaded(options, error, &desired.connection);
  }
  CustomKinds& custom_kinds = *checked_kinds;
  apply::PassOptions pass = pass_options(options, desired);
  pass.pin = pin.action;
  pass.origin = run_origin(desired.revision, pin, options.pin);
  if (options.dry_run && options.pin.rollback()) pin.note += "; a dry run pins nothing";
  if (!pin.note.empty() && !common.quiet) std::cerr << pin.note << "\n";
  forget_field_lines(desired.objects);  // checked: custom_kinds keeps its own copies

  // Installed before the Lease is taken, so a signal never leaves it held.
  StopSignals signals;
  pass.stop_requested = [&signals] { return signals.requested(); };
  auto asked = std::chrono::steady_clock::now();
  std::unique_ptr<apply::LeaseLock> lease = take_lease(options, desired, pass);
  if (lease) metrics.lease_taken(asked);

  Palette palette{use_color(common.no_color)};
  UnchangedSummary unchanged;
  std::size_t total = desired.objects.size();
  auto show_kinds_wait = report_pass_events(options, pass, total, display, unchanged);
  custom_kinds.plug_into(pass, *desired.connection.client, show_kinds_wait);

  display.show(planning_status(total));  // until the first wave starts
  auto report = apply::run_apply_pass(*desired.connection.client, std::move(desired.objects), pass);
  display.idle();
  desired.connection.client->set_write_gate(nullptr);
  lease.reset();
  metrics.pass_done(report, *desired.connection.client, pass.events.on_warning);

  // Built only when it is written: a tree of every object of the set, the largest thing a big no-op held.
  model::Json json;
  if (is_structured(options.output) || !options.report_file.empty()) {
    json = render_pass_json(report, desired.revision);
    json["pin"] = pin.report;
    if (!pin.note.empty()) json["pin"]["note"] = pin.note;
  }
  if (is_structured(options.output)) {
    std::cout << render_structured(json, options.output);
  } else if (options.output == "markdown") {
    std::cout << render_pass_markdown(report, desired.revision);
    if (!pin.note.empty()) std::cout << "\n> " << pin.note << "\n";
  } else {
    for (const auto& line : unchanged.lines())
      std::cout << line << "\n";
    if (!report.message.empty()) std::cerr << palette.red("error: " + report.message) << "\n";
    std::cout << pass_summary(report) << "\n";
  }
  if (!options.report_file.empty()) write_report_file(options.report_file, json);
  notify_pass(common, report, desired.revision, pass.events.on_warning);
  if (report.result == apply::PassResult::interrupted) return signals.exit_code();
  return exit_code_for(report.result);
}

}  // namespace

// The pass, and its metrics whatever its end: a run that fails or stops before its pass writes them too.
int run_reconcile(ReconcileOptions& options) {
  RunMetricsRecorder metrics(options.metrics, options.common.config);
  auto warn = [&](const std::string& line) {
    if (!options.common.quiet) std::cerr << "warning: " << line << "\n";
  };
  int code = 0;
  try {
    code = run_pass(options, metrics);
  } catch (const Error& error) {
    try {
      metrics.publish(options.common.config.name, cli::exit_code_for(error.category()), warn);
    } catch (const Error& also) {
      warn(also.what());  // the run's own error is the one to report
    }
    throw;
  }
  metrics.publish(options.common.config.name, code, warn);
  return code;
}

void add_reconcile_flags(CLI::App& command, ReconcileOptions& options) {
  add_source_flags(command, options.common);
  add_cluster_flags(command, options.common);
  add_kind_flags(command, options.common);
  add_change_flags(command, options.common);
  add_set_flags(command, options.common);
  add_take_over_flag(command, options.common);
  add_pass_flags(command, options.common);
  add_prune_guard_flags(command, options.common);
  add_refused_selector_flag(command, options.common);
  // kubectl's spelling is accepted: --dry-run=server and --dry-run=client are opctl's dry run (its plan
  // always asks the server, so there is no client-only plan), --dry-run=none is a real pass.
  command
      .add_flag(
          "--dry-run{server}", options.dry_run_mode,
          "Show the plan (create, configure, prune) without changing anything (=server|client: the same, "
          "as kubectl spells it; =none: a real pass)")
      ->check(CLI::IsMember({"server", "client", "none"}))
      ->each([&options](const std::string& mode) { options.dry_run = mode != "none"; });
  add_keep_running_flag(command, options.common);
  command.add_option("-o,--output", options.output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml", "markdown"}))
      ->capture_default_str();
  command.add_option("--report", options.report_file, "Also write the JSON run report to this file");
  add_metrics_flags(command, options.metrics);
  add_output_flags(command, options.common);
  add_progress_flag(command, options.common);
}

void register_reconcile(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<ReconcileOptions>();
  auto* command =
      app.add_subcommand("reconcile", "Run one reconcile pass: load, validate, apply in order, prune");
  command->footer(
      "Exit codes: 0 done, 2 invalid input (nothing of the set applied), 3 cluster error or an object "
      "failed, 4 lock "
      "held "
      "by another run or the Lease lost during the pass (it stops writing at once), 5 timed out or an object "
      "cannot become healthy, 130/143 stopped by SIGINT/SIGTERM (the requests in flight finish, the run is "
      "recorded as interrupted and the Lease released).\n\n"
      "Unchanged objects are counted per kind (-v: a line each). Progress (the git transfer, the wave "
      "applied, what --wait waits for) goes to stderr: a live line on a terminal, elsewhere a line after "
      "each --progress-interval without output.\n\n"
      "Examples:\n"
      "  opctl reconcile --path manifests-example/\n"
      "  opctl reconcile --repo https://git.example/ops.git --path prod --prune --wait --timeout 10m\n"
      "  opctl reconcile -f opctl.yaml --dry-run\n");
  add_reconcile_flags(*command, *options);
  command->callback([options, &action] { action = [options] { return run_reconcile(*options); }; });
}

}  // namespace opctl::cli
