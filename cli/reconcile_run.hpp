// The pass that `opctl reconcile` runs, shared with `opctl rollback` (which
// runs the same pass at an earlier revision and pins the set there).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "common_options.hpp"
#include "run_metrics_recorder.hpp"
#include "set_pin_plan.hpp"

namespace opctl::cli {

struct ReconcileOptions {
  CommonOptions common;
  bool dry_run = false;
  std::string dry_run_mode;  // what --dry-run[=server|client|none] was given; sets dry_run
  std::string output = "text";
  std::string report_file;
  PinRequest pin;          // opctl rollback's --to / --unpin
  MetricsOptions metrics;  // --metrics-file, --metrics-push
};

// Every flag of `opctl reconcile`: source, cluster, pass, guards, --dry-run, -o, --report.
void add_reconcile_flags(CLI::App& command, ReconcileOptions& options);

// Runs the pass; returns the exit code.
int run_reconcile(ReconcileOptions& options);

}  // namespace opctl::cli
