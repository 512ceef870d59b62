#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;
using Finalizers = std::vector<std::string>;

namespace {

Json archive_backup() {
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "Backup"},
          {"metadata", {{"name", "archive"}, {"namespace", "shop"}}},
          {"spec", {{"cluster", "db"}, {"schedule", "0 0 3 * * *"}, {"target", {{"pvc", "backup-store"}}}}},
          {"status", Json::object()}};
}

World deleted_cluster(bool with_final_backup) {
  World world(three_instances());
  if (with_final_backup) world.set_spec("finalBackup", {{"backup", "archive"}});
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  REQUIRE(world.last.finalizers == Finalizers{"opctl.io/final-backup"});
  world.finalizing = true;
  return world;
}

}  // namespace

TEST_CASE("deleting a Cluster stops the instances, backs up the primary, then drops the finalizer",
          "[cluster][final-backup]") {
  World world = deleted_cluster(true);
  world.related = {archive_backup()};
  auto result = world.pass();
  CHECK(world.names("Pod").empty());
  CHECK(world.names("PersistentVolumeClaim") == Names{"db-1", "db-2", "db-3"});
  // The TLS Secrets stay as they are: nothing is issued while the Cluster is deleted.
  CHECK(world.names("Secret") == Names{"db-app", "db-ca", "db-replication", "db-server", "db-superuser"});
  CHECK(result.finalizers == Finalizers{"opctl.io/final-backup"});
  CHECK(world.phase() == "FinalBackup");

  result = world.pass();
  CHECK(result.keep_unlisted);
  REQUIRE(world.has("Job", "db-final-backup"));
  Json& job = world.child("Job", "db-final-backup");
  CHECK(job["metadata"]["labels"]["opctl.io/backup"] == "archive");
  CHECK(job["metadata"]["labels"]["opctl.io/cluster-job"] == "final-backup");
  Json& pod = job["spec"]["template"]["spec"];
  CHECK(pod["volumes"][0]["persistentVolumeClaim"] == Json{{"claimName", "db-1"}, {"readOnly", true}});
  CHECK(pod["volumes"][1]["persistentVolumeClaim"]["claimName"] == "backup-store");
  CHECK(pod["containers"][0]["env"][2] == Json{{"name", "STAMP"}, {"value", "20261129T160000Z"}});
  CHECK(pod["containers"][0]["image"] == "ghcr.io/cloudnative-pg/postgresql:16.4");
  CHECK(result.finalizers == Finalizers{"opctl.io/final-backup"});

  world.clock.advance(std::chrono::seconds(60));
  result = world.pass();
  CHECK(result.finalizers == Finalizers{"opctl.io/final-backup"});
  CHECK(world.reason("Progressing") == "BackingUp");
  // The Job is not rebuilt with a new stamp on a later pass.
  CHECK(
      world.child("Job", "db-final-backup")["spec"]["template"]["spec"]["containers"][0]["env"][2]["value"] ==
      "20261129T160000Z");

  world.complete_jobs();
  result = world.pass();
  CHECK(result.finalizers.empty());
  CHECK(result.keep_unlisted);
  CHECK(world.parent["status"]["finalBackup"]["phase"] == "Completed");
}

TEST_CASE("a failed final backup keeps the Cluster and its data", "[cluster][final-backup]") {
  World world = deleted_cluster(true);
  world.related = {archive_backup()};
  world.pass();
  world.pass();
  world.complete_jobs("Failed");
  auto result = world.pass();
  CHECK(result.finalizers == Finalizers{"opctl.io/final-backup"});
  CHECK(result.keep_unlisted);
  CHECK(world.reason("Degraded") == "FinalBackupFailed");
  CHECK(world.status("phaseReason").find("remove the finalizer") != std::string::npos);
  CHECK(world.names("PersistentVolumeClaim") == Names{"db-1", "db-2", "db-3"});
}

TEST_CASE("a final backup without its Backup keeps the Cluster running", "[cluster][final-backup]") {
  World world = deleted_cluster(true);
  auto before = world.children;
  auto result = world.pass();
  CHECK(result.finalizers == Finalizers{"opctl.io/final-backup"});
  CHECK(result.keep_unlisted);
  CHECK(result.children.empty());
  CHECK(world.children == before);
  CHECK(world.reason("Degraded") == "FinalBackupTargetMissing");
}

TEST_CASE("without spec.finalBackup the finalizer goes at once", "[cluster][final-backup]") {
  World world = deleted_cluster(false);
  auto result = world.pass();
  CHECK(result.finalizers.empty());
  CHECK(result.keep_unlisted);
  CHECK(result.children.empty());
}

TEST_CASE("a Cluster that never stored data has nothing to back up", "[cluster][final-backup]") {
  World world(three_instances());
  world.set_spec("finalBackup", {{"backup", "archive"}});
  world.related = {archive_backup()};
  world.finalizing = true;
  auto result = world.pass();
  CHECK(result.finalizers.empty());
}
