#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;

namespace {

World restoring_cluster() {
  Json spec = three_instances();
  spec["bootstrap"] = {{"recovery", {{"backup", "nightly"}}}};
  return World(spec);
}

Json backup(Json status) {
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "Backup"},
          {"metadata", {{"name", "nightly"}, {"namespace", "shop"}}},
          {"spec", {{"cluster", "old-db"}, {"target", {{"pvc", "backup-store"}}}}},
          {"status", std::move(status)}};
}

Json succeeded_backup() {
  return backup({{"lastSuccessfulTime", "2026-11-29T03:00:00Z"}});
}

}  // namespace

TEST_CASE("the related Backups are the recovery source and the final backup target", "[cluster][recovery]") {
  World world = restoring_cluster();
  world.set_spec("finalBackup", {{"backup", "archive"}});
  auto refs = world.reconciler->related(world.parent);
  REQUIRE(refs.size() == 2);
  CHECK(refs[0].gvk == opctl::model::GroupVersionKind{"opctl.io", "v1alpha1", "Backup"});
  CHECK(refs[0].namespace_name == "shop");
  CHECK(refs[0].name == "nightly");
  CHECK(refs[1].name == "archive");
}

TEST_CASE("a missing Backup is Degraded and no empty database starts in its place", "[cluster][recovery]") {
  World world = restoring_cluster();
  auto result = world.pass();
  CHECK(world.condition("Degraded"));
  CHECK(world.reason("Degraded") == "BackupNotFound");
  CHECK(world.status("phaseReason").find("no empty database") != std::string::npos);
  CHECK(world.names("Pod").empty());
  CHECK(world.names("PersistentVolumeClaim").empty());
  CHECK(world.names("Job").empty());
  CHECK(result.requeue_after.has_value());
  world.pass();
  CHECK(world.names("Pod").empty());
}

TEST_CASE("a failed Backup is Degraded with its reason", "[cluster][recovery]") {
  World world = restoring_cluster();
  world.related = {
      backup({{"conditions", Json::array({{{"type", "Degraded"},
                                           {"status", "True"},
                                           {"reason", "JobFailed"},
                                           {"message", "pg_basebackup: connection refused"}}})}})};
  world.pass();
  CHECK(world.reason("Degraded") == "BackupFailed");
  CHECK(world.status("phaseReason").find("connection refused") != std::string::npos);
  CHECK(world.names("Pod").empty());
  CHECK(world.names("PersistentVolumeClaim").empty());
}

TEST_CASE("a Backup still running is waited for", "[cluster][recovery]") {
  World world = restoring_cluster();
  world.related = {backup(Json::object())};
  world.pass();
  CHECK_FALSE(world.condition("Degraded"));
  CHECK(world.reason("Progressing") == "WaitingForBackup");
  CHECK(world.names("PersistentVolumeClaim").empty());
}

TEST_CASE("a Backup with no success on record whose Cluster is gone is restored from what its volume holds",
          "[cluster][recovery]") {
  // The usual way to restore a deleted Cluster's final backup: its Backup
  // never ran on schedule, and its Cluster no longer exists.
  World world = restoring_cluster();
  world.related = {backup({{"conditions", Json::array({{{"type", "Progressing"}, {"status", "False"}},
                                                       {{"type", "Degraded"},
                                                        {"status", "True"},
                                                        {"reason", "ClusterNotFound"},
                                                        {"message", "Cluster \"old\" not found"}}})}})};
  world.pass();
  CHECK_FALSE(world.condition("Degraded"));
  CHECK(world.names("Job") == Names{"db-1-restore"});
  CHECK(world.names("Pod").empty());
}

TEST_CASE("the first instance is restored by a Job before its Pod starts, then the replicas join",
          "[cluster][recovery]") {
  World world = restoring_cluster();
  world.related = {succeeded_backup()};
  world.pass();
  CHECK(world.names("PersistentVolumeClaim") == Names{"db-1"});
  CHECK(world.names("Pod").empty());
  REQUIRE(world.names("Job") == Names{"db-1-restore"});
  Json& pod = world.child("Job", "db-1-restore")["spec"]["template"]["spec"];
  CHECK(pod["volumes"][0]["persistentVolumeClaim"]["claimName"] == "db-1");
  CHECK(pod["volumes"][1]["persistentVolumeClaim"]["claimName"] == "backup-store");
  CHECK(pod["containers"][0]["volumeMounts"][1] ==
        Json{{"name", "backups"}, {"mountPath", "/backups"}, {"readOnly", true}});
  CHECK(pod["containers"][0]["env"][2] == Json{{"name", "BACKUP_NAME"}, {"value", "nightly"}});
  CHECK(world.phase() == "Restoring");
  CHECK(world.parent["status"]["recovery"]["backup"] == "nightly");
  CHECK(world.parent["status"]["recovery"]["phase"] == "Restoring");

  world.pass();  // the Job runs: still no Pod
  CHECK(world.names("Pod").empty());
  CHECK(world.has("Job", "db-1-restore"));

  world.complete_jobs();
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1"});
  CHECK(world.role("db-1") == "primary");
  CHECK(world.names("Job").empty());
  CHECK(world.parent["status"]["recovery"]["phase"] == "Completed");
  CHECK(world.parent["status"]["recovery"]["completedAt"] == "2026-11-29T16:00:00Z");

  world.settle();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.phase() == "Healthy");
  CHECK(world.parent["status"]["recovery"]["backup"] == "nightly");
}

TEST_CASE("a failed restore is Degraded, starts no Pod, and is retried when its Job is deleted",
          "[cluster][recovery]") {
  World world = restoring_cluster();
  world.related = {succeeded_backup()};
  world.pass();
  world.complete_jobs("Failed");
  world.pass();
  CHECK(world.reason("Degraded") == "RestoreFailed");
  CHECK(world.names("Pod").empty());
  CHECK(world.has("Job", "db-1-restore"));
  world.pass();
  CHECK(world.names("Pod").empty());
  world.remove("Job", "db-1-restore");
  world.pass();
  CHECK(world.has("Job", "db-1-restore"));
  CHECK(world.names("Pod").empty());
}

TEST_CASE("a restore in progress survives a lost status without starting an empty database",
          "[cluster][recovery]") {
  World world = restoring_cluster();
  world.related = {succeeded_backup()};
  world.pass();
  world.parent["status"] = Json::object();
  world.pass();
  CHECK(world.names("Pod").empty());
  CHECK(world.has("Job", "db-1-restore"));
}

TEST_CASE("recovery is only read when the Cluster is created", "[cluster][recovery]") {
  World world(three_instances());
  world.settle();
  world.set_spec("bootstrap", {{"recovery", {{"backup", "nightly"}}}});
  world.settle();
  CHECK(world.phase() == "Healthy");
  CHECK(world.names("Job").empty());
}

TEST_CASE("volumes lost after the cluster ran are reported, not replaced by an empty database",
          "[cluster][recovery]") {
  World world(three_instances());
  world.settle();
  world.children.clear();
  world.pass();
  CHECK(world.reason("Degraded") == "VolumesLost");
  CHECK(world.names("Pod").empty());
  CHECK(world.names("PersistentVolumeClaim").empty());
}

TEST_CASE("a point-in-time restore hands its target and the Backup's WAL archive to the restore Job",
          "[cluster][recovery]") {
  Json spec = three_instances();
  spec["bootstrap"] = {{"recovery", {{"backup", "nightly"}, {"targetTime", "2026-11-30T12:00:00Z"}}}};
  World world(spec);
  world.related = {succeeded_backup()};
  world.pass();
  REQUIRE(world.names("Job") == Names{"db-1-restore"});
  Json env = Json::object();
  for (const auto& entry :
       world.child("Job", "db-1-restore")["spec"]["template"]["spec"]["containers"][0]["env"])
    if (entry.contains("value")) env[entry["name"].get<std::string>()] = entry["value"];
  CHECK(env["TARGET_TIME"] == "2026-11-30T12:00:00Z");
  CHECK(env["TARGET_LSN"] == "");
  CHECK(env["WAL_DIR"] == "/backups/nightly/wal");
  // The instances' replication limits: recovery refuses WAL written with higher ones than its own.
  CHECK(env["REPLICATION_LIMIT"] == "64");
  CHECK(world.reconciler->related(world.parent).size() == 1);
}
