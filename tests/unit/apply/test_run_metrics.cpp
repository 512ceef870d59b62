// A run's Prometheus metrics: every family has HELP and TYPE, every sample the set's label; the result is a
// state set with exactly one 1; a dry run's planned steps count under their action; label values are escaped;
// a run without a pass has no object counts. (tests/e2e/test_metrics.py parses the real output with
// prometheus_client.)
#include <catch2/catch.hpp>

#include "apply/run_metrics.hpp"
#include "model/metric_text.hpp"

using opctl::apply::Action;
using opctl::apply::ClusterMetrics;
using opctl::apply::ObjectOutcome;
using opctl::apply::PassCounts;
using opctl::apply::PassReport;
using opctl::apply::PassResult;
using opctl::apply::render_metrics;
using opctl::apply::RunMetrics;
using opctl::model::escape_metric_label;

namespace {

PassReport report_of(std::initializer_list<Action> actions, PassResult result = PassResult::succeeded) {
  PassReport report;
  report.result = result;
  for (Action action : actions) {
    ObjectOutcome outcome;
    outcome.action = action;
    report.outcomes.push_back(outcome);
  }
  return report;
}

RunMetrics run_with(const PassReport& report, int exit_code = 0) {
  RunMetrics run;
  run.set = "shop";
  run.started = std::chrono::system_clock::time_point(std::chrono::milliseconds(1764892800250));
  run.duration = std::chrono::milliseconds(1500);
  run.exit_code = exit_code;
  run.pass = PassCounts::of(report);
  return run;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

}  // namespace

TEST_CASE("a successful pass: success 1, its result, start, duration and the objects per action",
          "[run_metrics]") {
  // given a pass that created one object, configured one, left two and pruned one, we should count each
  std::string text = render_metrics(run_with(report_of(
      {Action::created, Action::configured, Action::unchanged, Action::unchanged, Action::pruned})));
  CHECK(has_line(text, "# TYPE opctl_run_success gauge"));
  CHECK(has_line(text, "opctl_run_success{set=\"shop\"} 1"));
  CHECK(has_line(text, "opctl_run_result{set=\"shop\",result=\"succeeded\"} 1"));
  CHECK(has_line(text, "opctl_run_result{set=\"shop\",result=\"failed\"} 0"));
  CHECK(has_line(text, "opctl_run_start_timestamp_seconds{set=\"shop\"} 1764892800.25"));
  CHECK(has_line(text, "opctl_run_duration_seconds{set=\"shop\"} 1.5"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"created\"} 1"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"configured\"} 1"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"unchanged\"} 2"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"pruned\"} 1"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"failed\"} 0"));
  CHECK(has_line(text, "opctl_drift_objects{set=\"shop\"} 3"));
  CHECK(text.find("opctl_lease_wait_seconds") == std::string::npos);  // no Lease was taken
  CHECK(text.find("opctl_cluster_") == std::string::npos);
}

TEST_CASE("a failed pass: success 0 and the result failed, with its exit code", "[run_metrics]") {
  // given a pass where one object failed, we should say so in three ways an alert can use
  std::string text = render_metrics(run_with(report_of({Action::failed}, PassResult::failed), 3));
  CHECK(has_line(text, "opctl_run_success{set=\"shop\"} 0"));
  CHECK(has_line(text, "opctl_run_result{set=\"shop\",result=\"failed\"} 1"));
  CHECK(has_line(text, "opctl_run_result{set=\"shop\",result=\"succeeded\"} 0"));
  CHECK(has_line(text, "opctl_run_exit_code{set=\"shop\"} 3"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"failed\"} 1"));
}

TEST_CASE("a pass that succeeded but whose run then failed is not a success", "[run_metrics]") {
  // given a pass that succeeded and a run that exited 2 afterwards (its --report could not be written)
  std::string text = render_metrics(run_with(report_of({Action::unchanged}), 2));
  CHECK(has_line(text, "opctl_run_success{set=\"shop\"} 0"));
}

TEST_CASE("a run that stopped before its pass has its result but no object counts", "[run_metrics]") {
  // given a run whose Lease another run held, we should report lock-held and count nothing
  RunMetrics run;
  run.set = "shop";
  run.exit_code = 4;
  run.result_without_pass = "lock-held";
  std::string text = render_metrics(run);
  CHECK(has_line(text, "opctl_run_success{set=\"shop\"} 0"));
  CHECK(has_line(text, "opctl_run_result{set=\"shop\",result=\"lock-held\"} 1"));
  CHECK(text.find("opctl_objects") == std::string::npos);
  CHECK(text.find("opctl_drift_objects") == std::string::npos);
}

TEST_CASE("a dry run counts its planned steps under their actions and says it was a dry run",
          "[run_metrics]") {
  PassReport report = report_of({Action::planned_create, Action::planned_update, Action::planned_prune});
  report.dry_run = true;
  std::string text = render_metrics(run_with(report));
  CHECK(has_line(text, "opctl_run_dry_run{set=\"shop\"} 1"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"created\"} 1"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"configured\"} 1"));
  CHECK(has_line(text, "opctl_objects{set=\"shop\",action=\"pruned\"} 1"));
  CHECK(has_line(text, "opctl_drift_objects{set=\"shop\"} 3"));
}

TEST_CASE("the Lease's wait, in seconds", "[run_metrics]") {
  RunMetrics run = run_with(report_of({}));
  run.lease_wait = std::chrono::milliseconds(40);
  CHECK(has_line(render_metrics(run), "opctl_lease_wait_seconds{set=\"shop\"} 0.04"));
}

TEST_CASE("a Cluster's instances, primary, lag and last backup", "[run_metrics]") {
  // given a Cluster of two instances, db-1 primary and db-2 a replica 128 bytes behind
  RunMetrics run = run_with(report_of({Action::unchanged}));
  ClusterMetrics db{"shop",      "db", 2, 1, "db-1", {{"db-1", true, std::nullopt}, {"db-2", false, 128}},
                    std::nullopt};
  db.last_backup = std::chrono::system_clock::time_point(std::chrono::seconds(1764892800));
  run.clusters.push_back(db);
  std::string text = render_metrics(run);
  CHECK(has_line(text, "opctl_cluster_instances{set=\"shop\",namespace=\"shop\",cluster=\"db\"} 2"));
  CHECK(has_line(text, "opctl_cluster_ready_instances{set=\"shop\",namespace=\"shop\",cluster=\"db\"} 1"));
  CHECK(has_line(
      text,
      "opctl_cluster_primary_info{set=\"shop\",namespace=\"shop\",cluster=\"db\",instance=\"db-1\"} 1"));
  CHECK(has_line(
      text,
      "opctl_cluster_instance_ready{set=\"shop\",namespace=\"shop\",cluster=\"db\",instance=\"db-2\"} 0"));
  CHECK(has_line(text,
                 "opctl_cluster_replication_lag_bytes{set=\"shop\",namespace=\"shop\",cluster=\"db\","
                 "instance=\"db-2\"} 128"));
  CHECK(text.find("instance=\"db-1\"} 128") == std::string::npos);  // the primary has no lag
  CHECK(has_line(text,
                 "opctl_cluster_last_backup_timestamp_seconds{set=\"shop\",namespace=\"shop\",cluster=\"db\"}"
                 " 1764892800"));
}

TEST_CASE("label values are escaped as the exposition format says", "[run_metrics]") {
  CHECK(escape_metric_label(R"(a\b"c)"
                            "\n") == R"(a\\b\"c\n)");
  RunMetrics run = run_with(report_of({}));
  run.set = "odd\"set";
  CHECK(has_line(render_metrics(run), "opctl_run_success{set=\"odd\\\"set\"} 1"));
}
