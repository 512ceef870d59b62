// --metrics-file and --metrics-push of `opctl reconcile`: what a run did, gathered as it goes and published
// when it ends, whether it succeeded, failed or stopped before its pass (that is when the metrics matter
// most).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "apply/pass_report.hpp"
#include "apply/run_metrics.hpp"
#include "config/run_config.hpp"
#include "kube/api_client.hpp"
#include "metrics_push.hpp"

namespace opctl::cli {

struct MetricsOptions {
  std::string file;  // --metrics-file
  MetricsPush push;  // --metrics-push, --metrics-push-auth-file
};

void add_metrics_flags(CLI::App& command, MetricsOptions& options);

// The flags over opctl.yaml's spec.metrics: --metrics-file replaces its file; --metrics-push replaces its
// whole push, credential included (the file's credential is for the file's URL), with
// --metrics-push-auth-file's or none; --metrics-push-auth-file alone replaces only the file's credential.
MetricsOptions metrics_options_of(const MetricsOptions& flags, const config::MetricsSettings& config);

class RunMetricsRecorder {
 public:
  // The run starts now. `config` is the run's opctl.yaml, read later: its spec.metrics counts once it is.
  RunMetricsRecorder(const MetricsOptions& flags, const config::RunConfig& config);

  bool wanted() const;
  // The set's Lease was taken; asking for it began at `asked`.
  void lease_taken(std::chrono::steady_clock::time_point asked);
  // The pass ended: its counts, and the live status of its Clusters (and of the Backups in their namespaces).
  // A Cluster that cannot be read is left out with a warning: the run's own metrics matter more.
  void pass_done(const apply::PassReport& report, kube::ApiClient& client,
                 const std::function<void(const std::string&)>& warn);
  // Writes the file, then pushes. A file that cannot be written throws Error (invalid input), as --report
  // does; a push that fails is handed to `warn`, not a failed run.
  void publish(const std::string& set, int exit_code, const std::function<void(const std::string&)>& warn);

 private:
  MetricsOptions options() const { return metrics_options_of(flags_, config_.metrics); }

  const MetricsOptions& flags_;
  const config::RunConfig& config_;
  apply::RunMetrics metrics_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace opctl::cli
