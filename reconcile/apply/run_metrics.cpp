#include "apply/run_metrics.hpp"

#include <fmt/format.h>

#include <utility>

#include "model/metric_text.hpp"

namespace opctl::apply {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One metric family: its # HELP and # TYPE, then its samples. A one-shot run's numbers are all gauges (a
// counter would restart at every run, so rate() over it means nothing).
class Family {
 public:
  Family(std::string& out, std::string name, const char* help, const std::string& set)
      : out_(out), name_(std::move(name)), set_(set) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name_, help, name_);
  }

  void sample(double value, const Labels& labels = {}) {
    std::string text = fmt::format("set=\"{}\"", model::escape_metric_label(set_));
    for (const auto& [name, label] : labels)
      text += fmt::format(",{}=\"{}\"", name, model::escape_metric_label(label));
    out_ += fmt::format("{}{{{}}} {}\n", name_, text, value);
  }

 private:
  std::string& out_;
  std::string name_;
  const std::string& set_;
};

double seconds(std::chrono::milliseconds duration) {
  return static_cast<double>(duration.count()) / 1000.0;
}

double seconds_since_epoch(std::chrono::system_clock::time_point time) {
  return seconds(std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()));
}

std::string result_of(const RunMetrics& run) {
  return run.pass ? to_string(run.pass->result) : run.result_without_pass;
}

// A dry run's planned steps count under the action they would be: opctl_run_dry_run tells them apart.
Action real_action(Action action) {
  switch (action) {
    case Action::planned_create:
      return Action::created;
    case Action::planned_update:
      return Action::configured;
    case Action::planned_prune:
      return Action::pruned;
    default:
      return action;
  }
}

void render_run(std::string& out, const RunMetrics& run) {
  bool succeeded = run.pass && run.pass->result == PassResult::succeeded && run.exit_code == 0;
  Family(out, "opctl_run_success", "1 when the run succeeded, else 0", run.set).sample(succeeded ? 1 : 0);
  Family result(out, "opctl_run_result", "How the run ended: 1 for its result, 0 for the others", run.set);
  for (std::string_view name : k_run_results)
    result.sample(name == result_of(run) ? 1 : 0, {{"result", std::string(name)}});
  Family(out, "opctl_run_exit_code", "The exit code of opctl reconcile", run.set).sample(run.exit_code);
  Family(out, "opctl_run_dry_run", "1 when the run was a dry run (its objects are planned, not applied)",
         run.set)
      .sample(run.pass && run.pass->dry_run ? 1 : 0);
  Family(out, "opctl_run_start_timestamp_seconds", "When the run started, in seconds since the Unix epoch",
         run.set)
      .sample(seconds_since_epoch(run.started));
  Family(out, "opctl_run_duration_seconds", "How long the run took, loading the set included", run.set)
      .sample(seconds(run.duration));
  if (run.lease_wait)
    Family(out, "opctl_lease_wait_seconds",
           "How long taking the set's Lease took (a held Lease is not waited for)", run.set)
        .sample(seconds(*run.lease_wait));
}

void render_objects(std::string& out, const RunMetrics& run) {
  const PassCounts& pass = *run.pass;
  auto count = [&](Action action) {
    auto it = pass.objects.find(action);
    return it == pass.objects.end() ? std::size_t{0} : it->second;
  };
  Family objects(out, "opctl_objects", "Objects of the set by what the pass did to them", run.set);
  for (Action action : {Action::created, Action::configured, Action::unchanged, Action::pruned, Action::kept,
                        Action::failed, Action::skipped})
    objects.sample(static_cast<double>(count(action)), {{"action", to_string(action)}});
  Family(out, "opctl_drift_objects",
         "Objects out of sync when the pass began: missing, different from the source, or no longer in it",
         run.set)
      .sample(
          static_cast<double>(count(Action::created) + count(Action::configured) + count(Action::pruned)));
}

void render_clusters(std::string& out, const RunMetrics& run) {
  auto labels = [](const ClusterMetrics& cluster) -> Labels {
    return {{"namespace", cluster.namespace_name}, {"cluster", cluster.name}};
  };
  auto with_instance = [&](const ClusterMetrics& cluster, const std::string& instance) {
    Labels both = labels(cluster);
    both.emplace_back("instance", instance);
    return both;
  };
  Family instances(out, "opctl_cluster_instances", "Instances a Cluster has (status.instances)", run.set);
  for (const auto& cluster : run.clusters)
    instances.sample(cluster.instances, labels(cluster));
  Family ready(out, "opctl_cluster_ready_instances", "Instances of a Cluster that are ready", run.set);
  for (const auto& cluster : run.clusters)
    ready.sample(cluster.ready_instances, labels(cluster));
  Family primary(out, "opctl_cluster_primary_info", "The instance that is a Cluster's primary (always 1)",
                 run.set);
  for (const auto& cluster : run.clusters)
    if (!cluster.primary.empty()) primary.sample(1, with_instance(cluster, cluster.primary));
  Family instance_ready(out, "opctl_cluster_instance_ready", "1 when an instance of a Cluster is ready",
                        run.set);
  for (const auto& cluster : run.clusters)
    for (const auto& instance : cluster.instance_states)
      instance_ready.sample(instance.ready ? 1 : 0, with_instance(cluster, instance.name));
  Family lag(out, "opctl_cluster_replication_lag_bytes",
             "How far a replica's replay is behind its primary's WAL", run.set);
  for (const auto& cluster : run.clusters)
    for (const auto& instance : cluster.instance_states)
      if (instance.lag_bytes)
        lag.sample(static_cast<double>(*instance.lag_bytes), with_instance(cluster, instance.name));
  Family backup(out, "opctl_cluster_last_backup_timestamp_seconds",
                "When the last successful backup of a Cluster finished, in seconds since the Unix epoch",
                run.set);
  for (const auto& cluster : run.clusters)
    if (cluster.last_backup) backup.sample(seconds_since_epoch(*cluster.last_backup), labels(cluster));
}

}  // namespace

PassCounts PassCounts::of(const PassReport& report) {
  PassCounts counts{report.result, report.dry_run, {}};
  for (const auto& outcome : report.outcomes)
    ++counts.objects[real_action(outcome.action)];
  return counts;
}

std::string render_metrics(const RunMetrics& run) {
  std::string out;
  render_run(out, run);
  if (run.pass) render_objects(out, run);
  if (!run.clusters.empty()) render_clusters(out, run);
  return out;
}

}  // namespace opctl::apply
