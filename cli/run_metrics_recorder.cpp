#include "run_metrics_recorder.hpp"

#include <fmt/format.h>

#include <csignal>
#include <map>
#include <set>

#include "exit_codes.hpp"
#include "kinds/cluster/cluster_metrics.hpp"
#include "kube/api_error.hpp"
#include "metrics_file.hpp"
#include "model/error.hpp"

namespace opctl::cli {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

// The result of a run that ended before its pass, from its exit code (exit_code_for's categories).
std::string result_without_pass(int exit_code) {
  switch (exit_code) {
    case k_exit_invalid_input:
      return "invalid-input";
    case k_exit_lock_held:
      return "lock-held";
    case k_exit_timeout:
      return "timed-out";
    case k_exit_signal_base + SIGINT:
    case k_exit_signal_base + SIGTERM:
      return "interrupted";
    default:
      return "cluster-error";
  }
}

// The set's Clusters that the pass leaves in place, by namespace.
std::map<std::string, std::set<std::string>> clusters_of(const apply::PassReport& report) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& outcome : report.outcomes) {
    bool gone = outcome.action == apply::Action::pruned || outcome.action == apply::Action::planned_prune;
    if (outcome.key.group == "opctl.io" && outcome.key.kind == "Cluster" && !gone)
      out[outcome.key.namespace_name].insert(outcome.key.name);
  }
  return out;
}

std::vector<apply::ClusterMetrics> read_clusters(const apply::PassReport& report, kube::ApiClient& client) {
  std::vector<apply::ClusterMetrics> out;
  auto wanted = clusters_of(report);
  if (wanted.empty()) return out;
  auto clusters = client.mapper().find({"opctl.io", "v1alpha1", "Cluster"});
  auto backups = client.mapper().find({"opctl.io", "v1alpha1", "Backup"});
  if (!clusters) throw ClusterError("the cluster does not serve opctl.io/v1alpha1 Cluster");
  for (const auto& [namespace_name, names] : wanted) {
    // Every Backup of the namespace, the set's or not: a Cluster's last backup is its last backup.
    std::vector<model::Json> namespace_backups;
    if (backups) namespace_backups = client.list(*backups, namespace_name);
    for (const auto& name : names) {
      auto result = client.execute(client.get_request(*clusters, namespace_name, name));
      if (result.status.reason == kube::ApiReason::not_found)
        continue;  // a dry run's new Cluster, or deleted
      if (!result.ok()) throw kube::ApiError(result.status);
      out.push_back(kinds::cluster::cluster_metrics(result.object, namespace_backups));
    }
  }
  return out;
}

}  // namespace

void add_metrics_flags(CLI::App& command, MetricsOptions& options) {
  command.add_option(
      "--metrics-file", options.file,
      "Write the run's Prometheus metrics to this file (replaced atomically; for node-exporter's "
      "textfile collector, name it *.prom), also when the run fails (also: spec.metrics.file)");
  command.add_option("--metrics-push", options.push.url,
                     "Push the run's Prometheus metrics to this Pushgateway (e.g. http://pushgateway:9091), "
                     "grouped by job=opctl and set=<name>; a failed push is a warning (also: "
                     "spec.metrics.push.url; the flag replaces the whole push: a credential with it comes "
                     "from --metrics-push-auth-file only)");
  command
      .add_option("--metrics-push-auth-file", options.push.auth_file,
                  "A file holding the Authorization header value for --metrics-push (\"Bearer TOKEN\" or "
                  "\"Basic BASE64\"); never printed (also: spec.metrics.push.authFile or authEnv)")
      ->check(CLI::ExistingFile);
}

MetricsOptions metrics_options_of(const MetricsOptions& flags, const config::MetricsSettings& config) {
  MetricsOptions out = flags;
  if (out.file.empty()) out.file = config.file.value_or("");
  if (flags.push.url.empty() && config.push) {
    out.push.url = config.push->url;
    if (flags.push.auth_file.empty()) {
      out.push.auth_file = config.push->auth_file;
      out.push.auth_env = config.push->auth_env;
    }
  }
  return out;
}

RunMetricsRecorder::RunMetricsRecorder(const MetricsOptions& flags, const config::RunConfig& config)
    : flags_(flags), config_(config), started_(std::chrono::steady_clock::now()) {
  metrics_.started = std::chrono::system_clock::now();
}

bool RunMetricsRecorder::wanted() const {
  auto options = this->options();
  return !options.file.empty() || !options.push.url.empty();
}

void RunMetricsRecorder::lease_taken(std::chrono::steady_clock::time_point asked) {
  metrics_.lease_wait = duration_cast<milliseconds>(std::chrono::steady_clock::now() - asked);
}

void RunMetricsRecorder::pass_done(const apply::PassReport& report, kube::ApiClient& client,
                                   const std::function<void(const std::string&)>& warn) {
  if (!wanted()) return;
  metrics_.pass = apply::PassCounts::of(report);
  try {
    metrics_.clusters = read_clusters(report, client);
  } catch (const Error& error) {
    warn(fmt::format("the metrics leave the Clusters out: {}", error.what()));
  }
}

void RunMetricsRecorder::publish(const std::string& set, int exit_code,
                                 const std::function<void(const std::string&)>& warn) {
  if (!wanted()) return;
  metrics_.set = set;
  metrics_.exit_code = exit_code;
  metrics_.duration = duration_cast<milliseconds>(std::chrono::steady_clock::now() - started_);
  if (!metrics_.pass) metrics_.result_without_pass = result_without_pass(exit_code);
  std::string text = apply::render_metrics(metrics_);
  auto options = this->options();
  if (!options.file.empty()) write_metrics_file(options.file, text);
  if (options.push.url.empty()) return;
  try {
    push_metrics(options.push, set, text);
  } catch (const Error& error) {
    warn(error.what());
  }
}

}  // namespace opctl::cli
