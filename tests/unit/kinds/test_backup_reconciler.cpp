#include <catch2/catch.hpp>

#include "kinds/backup/backup_reconciler.hpp"
#include "kinds_fixtures.hpp"

using opctl::model::Json;
using namespace opctl::kinds;
using test::FixedClock;
using test::FixedRandom;

namespace {

Json backup_object(const std::string& spec_yaml) {
  Json object = test::json_from_yaml(
      "apiVersion: opctl.io/v1alpha1\nkind: Backup\nmetadata:\n  name: nightly\n"
      "  namespace: shop\n  uid: uid-1\n  generation: 3\nspec:\n" +
      spec_yaml);
  return object;
}

Json backup_cluster(const std::string& image = "ghcr.io/cloudnative-pg/postgresql:16.4") {
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "Cluster"},
          {"metadata", {{"name", "db"}, {"namespace", "shop"}}},
          {"spec", {{"instances", 1}, {"imageName", image}}}};
}

Json job(const std::string& name, const std::string& state, const std::string& finished,
         const std::string& trigger = "schedule") {
  Json object = {{"apiVersion", "batch/v1"},
                 {"kind", "Job"},
                 {"metadata",
                  {{"name", name},
                   {"namespace", "shop"},
                   {"uid", "uid-" + name},
                   {"creationTimestamp", "2026-01-01T00:00:00Z"},
                   {"labels", {{"opctl.io/owner-uid", "uid-1"}, {"opctl.io/backup-trigger", trigger}}}}},
                 {"status", {{"startTime", "2026-01-01T00:00:00Z"}}}};
  if (state == "Complete") {
    object["status"]["completionTime"] = finished;
    object["status"]["conditions"] = {
        {{"type", "Complete"}, {"status", "True"}, {"lastTransitionTime", finished}}};
  } else if (state == "Failed") {
    object["status"]["conditions"] = {
        {{"type", "Failed"}, {"status", "True"}, {"lastTransitionTime", finished}}};
  }
  return object;
}

const Json* child(const ReconcileResult& result, const std::string& kind) {
  for (const auto& object : result.children)
    if (object.value("kind", "") == kind) return &object;
  return nullptr;
}

const Condition& condition(const ReconcileResult& result, const std::string& type) {
  for (const auto& entry : result.conditions)
    if (entry.type == type) return entry;
  FAIL("no condition " << type);
  throw 0;
}

std::vector<std::string> deleted_names(const ReconcileResult& result) {
  std::vector<std::string> names;
  for (const auto& object : result.deletions)
    names.push_back(object["metadata"].value("name", ""));
  std::sort(names.begin(), names.end());
  return names;
}

ReconcileResult reconcile(const Json& parent, std::vector<Json> children = {}, bool with_cluster = true,
                          const std::string& now = "2026-03-10T10:17:00Z") {
  FixedClock clock(now);
  FixedRandom random;
  Context context{clock, random};
  Observed observed{parent, std::move(children), {}, false};
  if (with_cluster) observed.related.push_back(backup_cluster());
  return backup::BackupReconciler().reconcile(observed, context);
}

const std::string k_scheduled =
    "  cluster: db\n  schedule: \"0 3 * * *\"\n  target:\n    pvc: backups\n"
    "  retention:\n    keep: 7\n";

}  // namespace

TEST_CASE(
    "given a scheduled Backup, we own one CronJob that runs pg_basebackup as the Cluster's replication role",
    "[kinds][backup]") {
  auto result = reconcile(backup_object(k_scheduled));
  REQUIRE(result.children.size() == 1);
  const Json& cron = *child(result, "CronJob");
  CHECK(cron["metadata"]["name"] == "nightly");
  CHECK(cron["spec"]["schedule"] == "0 3 * * *");
  CHECK(cron["spec"]["timeZone"] == "Etc/UTC");
  CHECK(cron["spec"]["suspend"] == false);
  CHECK(cron["spec"]["concurrencyPolicy"] == "Forbid");
  CHECK(cron["spec"]["successfulJobsHistoryLimit"] == 7);
  const Json& labels = cron["spec"]["jobTemplate"]["metadata"]["labels"];
  CHECK(labels["opctl.io/owner-uid"] == "uid-1");
  const Json& container = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0];
  CHECK(container["image"] == "ghcr.io/cloudnative-pg/postgresql:16.4");
  std::string env = container["env"].dump();
  CHECK(
      env.find(
          R"({"name":"PGPASSWORD","valueFrom":{"secretKeyRef":{"key":"password","name":"db-replication"}}})") !=
      std::string::npos);
  CHECK(env.find(R"({"name":"PGHOST","value":"db-rw"})") != std::string::npos);
  CHECK(env.find("BACKUP_KEEP") != std::string::npos);
  CHECK(cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]
            ["claimName"] == "backups");
  CHECK(result.status["nextScheduleTime"] == "2026-03-11T03:00:00Z");
  CHECK(condition(result, "Ready").status);
  CHECK(condition(result, "Ready").reason == "Scheduled");
  CHECK_FALSE(condition(result, "Degraded").status);
  CHECK_FALSE(result.requeue_after);
}

TEST_CASE("given spec edits, the CronJob follows: schedule, time zone, suspend and method",
          "[kinds][backup]") {
  auto result =
      reconcile(backup_object("  cluster: db\n  schedule: \"@hourly\"\n  timeZone: Europe/Berlin\n"
                              "  suspend: true\n  method: pg_dump\n  target:\n    volume:\n      nfs:\n"
                              "        server: nfs.local\n        path: /pg\n"));
  const Json& cron = *child(result, "CronJob");
  CHECK(cron["spec"]["schedule"] == "@hourly");
  CHECK(cron["spec"]["timeZone"] == "Europe/Berlin");
  CHECK(cron["spec"]["suspend"] == true);
  CHECK(cron["spec"]["successfulJobsHistoryLimit"] == 100);
  const Json& pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  CHECK(pod["containers"][0]["env"].dump().find(R"({"name":"BACKUP_METHOD","value":"pg_dump"})") !=
        std::string::npos);
  CHECK(pod["volumes"][0]["nfs"]["server"] == "nfs.local");
  CHECK(pod["volumes"][0]["name"] == "backups");
  CHECK_FALSE(result.status.contains("nextScheduleTime"));
  CHECK(condition(result, "Ready").reason == "Suspended");
}

TEST_CASE("given no schedule, one Job runs now and the Backup is Ready when it completed",
          "[kinds][backup]") {
  std::string spec = "  cluster: db\n  target:\n    pvc: backups\n";
  auto first = reconcile(backup_object(spec));
  REQUIRE(first.children.size() == 1);
  const Json& once = *child(first, "Job");
  CHECK(once["metadata"]["name"] == "nightly-once");
  CHECK(once["metadata"]["annotations"]["opctl.io/create-only"] == "true");
  CHECK(once["metadata"]["labels"]["opctl.io/backup-trigger"] == "once");
  CHECK_FALSE(condition(first, "Ready").status);
  CHECK(condition(first, "Ready").reason == "Pending");
  CHECK(first.requeue_after == std::chrono::seconds(5));

  auto running = reconcile(backup_object(spec), {job("nightly-once", "Running", "", "once")});
  CHECK(condition(running, "Ready").reason == "Running");
  CHECK(condition(running, "Progressing").status);

  auto done =
      reconcile(backup_object(spec), {job("nightly-once", "Complete", "2026-03-10T10:05:00Z", "once")});
  CHECK(condition(done, "Ready").status);
  CHECK(condition(done, "Ready").reason == "Completed");
  CHECK(done.status["lastSuccessfulTime"] == "2026-03-10T10:05:00Z");
  CHECK(done.status["lastScheduleTime"] == "2026-01-01T00:00:00Z");
  CHECK_FALSE(done.requeue_after);

  auto failed =
      reconcile(backup_object(spec), {job("nightly-once", "Failed", "2026-03-10T10:05:00Z", "once")});
  CHECK_FALSE(condition(failed, "Ready").status);
  CHECK(condition(failed, "Degraded").status);
  CHECK(condition(failed, "Degraded").reason == "BackupFailed");
}

TEST_CASE("given a one-off Backup that succeeded and whose Job is gone, no new Job starts",
          "[kinds][backup]") {
  Json parent = backup_object("  cluster: db\n  target:\n    pvc: backups\n");
  parent["status"] = {{"lastSuccessfulTime", "2026-03-01T00:00:00Z"}};
  auto result = reconcile(parent);
  CHECK(result.children.empty());
  CHECK(condition(result, "Ready").status);
  CHECK(result.status["lastSuccessfulTime"] == "2026-03-01T00:00:00Z");
}

TEST_CASE("given backup Jobs beyond retention, exactly those are deleted", "[kinds][backup]") {
  std::string spec =
      "  cluster: db\n  schedule: \"0 3 * * *\"\n  target:\n    pvc: backups\n"
      "  retention:\n    keep: 2\n    maxAge: 7d\n";
  std::vector<Json> jobs = {
      job("nightly-1", "Complete", "2026-03-09T03:10:00Z"),  // newest: kept
      job("nightly-2", "Complete", "2026-03-08T03:10:00Z"),  // second: kept
      job("nightly-3", "Complete", "2026-03-07T03:10:00Z"),  // beyond keep
      job("nightly-4", "Complete", "2026-02-01T03:10:00Z"),  // beyond keep and maxAge
      job("nightly-5", "Failed", "2026-03-05T03:10:00Z"),    // superseded by a later success
      job("nightly-6", "Running", ""),                       // never deleted
      job("nightly-7", "Failed", "2026-03-10T03:10:00Z"),    // the latest run failed: kept, Degraded
  };
  auto result = reconcile(backup_object(spec), jobs);
  CHECK(deleted_names(result) == std::vector<std::string>{"nightly-3", "nightly-4", "nightly-5"});
  CHECK(result.deletions[0]["metadata"]["annotations"]["opctl.io/deletion-reason"].get<std::string>().find(
            "beyond retention") != std::string::npos);
  CHECK(result.status["lastSuccessfulTime"] == "2026-03-09T03:10:00Z");
  CHECK(condition(result, "Degraded").status);
  CHECK(condition(result, "Degraded").message.find("nightly-7") != std::string::npos);
  CHECK(condition(result, "Progressing").status);
}

TEST_CASE("given maxAge alone, even the newest backup older than it is deleted", "[kinds][backup]") {
  std::string spec =
      "  cluster: db\n  schedule: \"0 3 * * *\"\n  suspend: true\n  target:\n    pvc: backups\n"
      "  retention:\n    maxAge: 1w\n";
  auto result = reconcile(backup_object(spec), {job("old", "Complete", "2026-02-01T03:10:00Z")});
  CHECK(deleted_names(result) == std::vector<std::string>{"old"});
}

TEST_CASE("given a bad spec that reached the cluster, Degraded says why and nothing changes",
          "[kinds][backup]") {
  Json parent = backup_object("  cluster: db\n  schedule: \"0 0 3 * * *\"\n  target:\n    pvc: backups\n");
  parent["status"] = {{"lastSuccessfulTime", "2026-03-01T00:00:00Z"}};
  auto result = reconcile(parent, {job("nightly-1", "Complete", "2025-01-01T00:00:00Z")});
  CHECK(result.keep_unlisted);
  CHECK(result.children.empty());
  CHECK(result.deletions.empty());
  CHECK(condition(result, "Degraded").reason == "InvalidSpec");
  CHECK(condition(result, "Degraded").message.find("\"0 3 * * *\"") != std::string::npos);
  CHECK(result.status["lastSuccessfulTime"] == "2026-03-01T00:00:00Z");
}

TEST_CASE("given a Cluster that does not exist, Degraded says so and nothing changes", "[kinds][backup]") {
  auto result = reconcile(backup_object(k_scheduled), {}, false);
  CHECK(result.keep_unlisted);
  CHECK(result.children.empty());
  CHECK(condition(result, "Degraded").reason == "ClusterNotFound");
  CHECK(condition(result, "Degraded").message == "Cluster \"db\" not found in namespace shop");
}

TEST_CASE("related() asks for the named Cluster in the Backup's namespace", "[kinds][backup]") {
  auto refs = backup::BackupReconciler().related(backup_object(k_scheduled));
  REQUIRE(refs.size() == 1);
  CHECK(refs[0].gvk.kind == "Cluster");
  CHECK(refs[0].namespace_name == "shop");
  CHECK(refs[0].name == "db");
}

namespace {

Json backup_pod(const std::string& name, int exit_code, const std::string& finished,
                const std::string& message) {
  Json terminated = {{"exitCode", exit_code}, {"finishedAt", finished}, {"message", message}};
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", "shop"}, {"labels", {{"opctl.io/owner-uid", "uid-1"}}}}},
      {"status",
       {{"phase", exit_code == 0 ? "Succeeded" : "Failed"},
        {"containerStatuses",
         Json::array({{{"name", "backup"}, {"state", {{"terminated", terminated}}}}})}}}};
}

std::string report_message(const std::string& newest, const std::string& older, int count) {
  return R"({"artifact":{"name":")" + newest +
         R"(","method":"pg_basebackup","pgMajor":15,"endLsn":"0/3000100"},)" + R"("artifacts":[{"name":")" +
         newest + R"(","method":"pg_basebackup","pgMajor":15,"endTime":"t","sizeBytes":10},)" +
         R"({"name":")" + older +
         R"(","method":"pg_basebackup","pgMajor":15,"endTime":"t","sizeBytes":9}],)" + R"("artifactCount":)" +
         std::to_string(count) + "}";
}

}  // namespace

TEST_CASE("given succeeded backup Pods, status lists the artifacts the newest one left on the volume",
          "[kinds][backup]") {
  std::vector<Json> children = {
      job("nightly-1", "Complete", "2026-03-10T03:01:00Z"),
      backup_pod("nightly-1-abc", 0, "2026-03-10T03:01:00Z",
                 report_message("20260310T030000Z", "20260309T030000Z", 2)),
      backup_pod("nightly-0-abc", 0, "2026-03-09T03:01:00Z",
                 report_message("20260309T030000Z", "20260308T030000Z", 7)),
      backup_pod("nightly-2-abc", 1, "2026-03-10T09:01:00Z", "pg_basebackup: error: connection refused"),
  };
  auto result = reconcile(backup_object(k_scheduled), children);
  CHECK(result.status["lastArtifact"]["name"] == "20260310T030000Z");
  CHECK(result.status["lastArtifact"]["endLsn"] == "0/3000100");
  REQUIRE(result.status["artifacts"].size() == 2);
  CHECK(result.status["artifacts"][0]["name"] == "20260310T030000Z");
  CHECK(result.status["artifacts"][1]["name"] == "20260309T030000Z");
  CHECK(result.status["artifactCount"] == 2);
  // The Pods belong to their Jobs: never listed as children to keep, never deleted.
  CHECK(child(result, "Pod") == nullptr);
  CHECK(result.deletions.empty());
}

TEST_CASE("given no backup Pod left, the artifacts last written stay; a bad message is not a report",
          "[kinds][backup]") {
  Json parent = backup_object(k_scheduled);
  parent["status"] = {{"lastArtifact", {{"name", "20260301T030000Z"}}},
                      {"artifacts", Json::array({{{"name", "20260301T030000Z"}}})},
                      {"artifactCount", 1}};
  auto kept = reconcile(
      parent, {backup_pod("nightly-9-abc", 0, "2026-03-10T03:01:00Z", "{\"name\":\"only a manifest\"}"),
               backup_pod("nightly-8-abc", 0, "2026-03-10T03:02:00Z", "not json")});
  CHECK(kept.status["lastArtifact"]["name"] == "20260301T030000Z");
  CHECK(kept.status["artifactCount"] == 1);
  CHECK(kept.status["artifacts"].size() == 1);

  auto none = reconcile(backup_object(k_scheduled));
  CHECK_FALSE(none.status.contains("artifacts"));
}

TEST_CASE("the backup Job's Pods carry the owner label, so the Backup sees them", "[kinds][backup]") {
  auto result = reconcile(backup_object(k_scheduled));
  const Json& cron = *child(result, "CronJob");
  CHECK(cron["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]["opctl.io/owner-uid"] ==
        "uid-1");
  auto kinds = backup::BackupReconciler().child_kinds();
  CHECK(std::find_if(kinds.begin(), kinds.end(), [](const auto& gvk) { return gvk.kind == "Pod"; }) !=
        kinds.end());
}

TEST_CASE("given a hibernating Cluster, no backup Job starts: the CronJob is suspended, a one-off waits",
          "[kinds][backup][hibernation]") {
  // Given the Cluster annotated opctl.io/hibernation: on (or still waking, status.hibernated), we should
  // suspend the schedule's CronJob and hold a one-off Job back, saying why.
  auto run = [](const std::string& spec, const Json& cluster_object) {
    FixedClock clock("2026-03-10T10:17:00Z");
    FixedRandom random;
    Context context{clock, random};
    Observed observed{backup_object(spec), {}, {cluster_object}, false};
    return backup::BackupReconciler().reconcile(observed, context);
  };
  Json hibernating = backup_cluster();
  hibernating["metadata"]["annotations"]["opctl.io/hibernation"] = "on";
  std::string scheduled = "  cluster: db\n  schedule: \"@hourly\"\n  target:\n    pvc: backups\n";
  auto result = run(scheduled, hibernating);
  CHECK((*child(result, "CronJob"))["spec"]["suspend"] == true);
  CHECK_FALSE(result.status.contains("nextScheduleTime"));
  CHECK(condition(result, "Ready").reason == "ClusterHibernated");

  auto once = run("  cluster: db\n  target:\n    pvc: backups\n", hibernating);
  CHECK(child(once, "Job") == nullptr);
  CHECK(condition(once, "Ready").reason == "ClusterHibernated");

  Json waking = backup_cluster();
  waking["status"]["hibernated"] = true;
  CHECK((*child(run(scheduled, waking), "CronJob"))["spec"]["suspend"] == true);
  Json awake = backup_cluster();
  awake["metadata"]["annotations"]["opctl.io/hibernation"] = "off";
  CHECK((*child(run(scheduled, awake), "CronJob"))["spec"]["suspend"] == false);
}
