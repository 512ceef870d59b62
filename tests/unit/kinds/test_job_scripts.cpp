// Every shell script a Job of the Backup and Cluster kinds runs is parsed by
// the same shell the images run (/bin/sh, dash on Debian) with `sh -n`: a
// syntax error would otherwise show only when a backup or a restore is due.
// What the scripts do is tested for real on the test node
// (tests/e2e/test_backup_dataplane.py).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "kinds/backup/backup_job.hpp"
#include "kinds/cluster/cluster_jobs.hpp"
#include "process/child_process.hpp"

namespace {

using opctl::model::Json;
namespace backup_kind = opctl::kinds::backup;
namespace cluster_kind = opctl::kinds::cluster;

struct Script {
  std::string where;
  std::string text;
};

// The `sh -c SCRIPT` of every container and init container of a Pod spec.
void collect(const std::string& job, const Json& pod_spec, std::vector<Script>& scripts) {
  for (const char* list : {"initContainers", "containers"}) {
    for (const auto& container : pod_spec.value(list, Json::array())) {
      const Json& command = container.at("command");
      REQUIRE(command.size() == 3);
      REQUIRE(command[0] == "/bin/sh");
      REQUIRE(command[1] == "-c");
      scripts.push_back({job + "/" + container.value("name", ""), command[2].get<std::string>()});
    }
  }
}

std::vector<Script> every_job_script() {
  std::vector<Script> scripts;
  backup_kind::BackupSpec spec;
  spec.cluster = "db";
  spec.target.pvc = "backup-store";
  spec.keep = 3;
  backup_kind::JobInput input{"nightly", "shop", "uid-1", spec, "img:15", backup_kind::RunAs{}};
  collect("backup", backup_kind::backup_job(input, "nightly-once", "once")["spec"]["template"]["spec"],
          scripts);

  cluster_kind::ClusterSpec db;
  db.name = "db";
  db.namespace_name = "shop";
  Json volume = {{"persistentVolumeClaim", {{"claimName", "backup-store"}}}};
  collect("restore",
          cluster_kind::build_restore_job(
              db, {1, "nightly", volume, std::nullopt, ""})["spec"]["template"]["spec"],
          scripts);
  opctl::kinds::ObjectStore store;
  store.destination_path = "s3://backups/shop";
  store.access_key_id = {"s3-keys", "id"};
  store.secret_access_key = {"s3-keys", "secret"};
  collect(
      "restore-from-store",
      cluster_kind::build_restore_job(db, {1, "offsite", Json(), store, "db"})["spec"]["template"]["spec"],
      scripts);
  cluster_kind::MajorUpgradeStatus upgrade{"img:15", "img:17", 15, 17, "db-1", "db-upgrade-17", "Upgrading"};
  collect("major-upgrade", cluster_kind::build_major_upgrade_job(db, upgrade)["spec"]["template"]["spec"],
          scripts);
  cluster_kind::FinalBackupJobOptions final_backup{"db-1", "img:15", "nightly", volume, "20261201T120000Z"};
  collect("final-backup", cluster_kind::build_final_backup_job(db, final_backup)["spec"]["template"]["spec"],
          scripts);
  return scripts;
}

}  // namespace

TEST_CASE("every Job script parses with sh -n", "[kinds][scripts]") {
  auto scripts = every_job_script();
  // backup, restore (from a volume and from a store), copy-old-binaries + pg-upgrade, final-backup
  REQUIRE(scripts.size() == 6);
  for (const auto& script : scripts) {
    INFO(script.where);
    opctl::process::ProcessOptions options;
    options.input = script.text;
    options.timeout = std::chrono::seconds(10);
    auto result = opctl::process::run_process({"sh", "-n"}, options);
    CHECK(result.err == "");
    CHECK(result.exit_code == 0);
  }
}

TEST_CASE("sh -n catches a broken script (the check can fail)", "[kinds][scripts]") {
  opctl::process::ProcessOptions options;
  options.input = "set -eu\nif [ -f x ]; then\n  echo missing fi\n";
  auto result = opctl::process::run_process({"sh", "-n"}, options);
  CHECK(result.exit_code != 0);
}

TEST_CASE("the backup Job uses the replication role for pg_basebackup and the superuser for pg_dump",
          "[kinds][backup]") {
  backup_kind::BackupSpec spec;
  spec.cluster = "db";
  spec.target.pvc = "backup-store";
  auto secret_of = [&](const std::string& method) {
    spec.method = method;
    backup_kind::JobInput input{"nightly", "shop", "uid-1", spec, "img:15", backup_kind::RunAs{1000, 2000}};
    Json pod = backup_kind::job_spec(input)["template"]["spec"];
    CHECK(pod["securityContext"]["runAsUser"] == 1000);
    CHECK(pod["securityContext"]["fsGroup"] == 2000);
    for (const auto& env : pod["containers"][0]["env"])
      if (env["name"] == "PGPASSWORD") return env["valueFrom"]["secretKeyRef"]["name"].get<std::string>();
    return std::string();
  };
  CHECK(secret_of("pg_basebackup") == "db-replication");
  CHECK(secret_of("pg_dump") == "db-superuser");
}
