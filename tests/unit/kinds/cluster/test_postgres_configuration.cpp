#include <catch2/catch.hpp>
#include <set>

#include "cluster_world.hpp"
#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/cluster/postgres_configuration.hpp"

using cluster_test::three_instances;
using cluster_test::World;
using namespace opctl::kinds::cluster;
using opctl::model::Json;
using Names = std::vector<std::string>;

namespace {

Json cluster(const Json& postgresql) {
  return cluster_test::small_cluster({{"postgresql", postgresql}});
}

std::vector<std::string> pointers(const Json& resource) {
  std::vector<std::string> out;
  for (const auto& issue : check_cluster(resource))
    out.push_back(issue.pointer);
  return out;
}

// Every instance reports that it loaded `hash`, with `pending` parameters waiting for a restart.
void report(World& world, const std::string& hash, const std::string& pending) {
  for (const char* pod : {"db-1", "db-2", "db-3"})
    if (world.has("Pod", pod)) {
      world.annotate(pod, "opctl.io/config-hash", hash);
      world.annotate(pod, "opctl.io/pending-restart", pending);
    }
}

}  // namespace

TEST_CASE("parameters opctl sets itself are refused, each at its own line", "[cluster][configuration]") {
  // Given parameters that would break replication or connectivity, validation should name each one.
  auto issues = check_cluster(cluster(
      {{"parameters",
        {{"shared_buffers", "256MB"}, {"listen_addresses", "localhost"}, {"Wal_Level", "minimal"}}}}));
  REQUIRE(issues.size() == 2);
  CHECK(issues[0].pointer == "/spec/postgresql/parameters/Wal_Level");
  CHECK(issues[0].field == "spec.postgresql.parameters.Wal_Level");
  CHECK(issues[0].message.find("opctl owns Wal_Level") != std::string::npos);
  CHECK(issues[1].pointer == "/spec/postgresql/parameters/listen_addresses");
  for (const char* name : {"port", "hba_file", "data_directory", "archive_command", "primary_conninfo",
                           "synchronous_standby_names", "hot_standby", "max_wal_senders", "include_dir"})
    CHECK(refused_parameter(name));
  for (const char* name : {"shared_buffers", "max_connections", "work_mem", "shared_preload_libraries",
                           "pg_stat_statements.max", "wal_keep_size"})
    CHECK_FALSE(refused_parameter(name));
}

TEST_CASE("parameter names, values and pg_hba rules that cannot be written safely are refused",
          "[cluster][configuration]") {
  CHECK(pointers(cluster({{"parameters", {{"work_mem\nfsync", "off"}}}})) ==
        Names{"/spec/postgresql/parameters/work_mem\nfsync"});
  CHECK(pointers(cluster({{"parameters", {{"work_mem", "4MB\nfsync = off"}}}})) ==
        Names{"/spec/postgresql/parameters/work_mem"});
  CHECK(pointers(cluster({{"parameters", {{"work_mem", 4}}}})) ==
        Names{"/spec/postgresql/parameters/work_mem"});
  CHECK(pointers(cluster({{"pg_hba", {"host all all 10.0.0.0/8 scram-sha-256", "include /etc/x"}}})) ==
        Names{"/spec/postgresql/pg_hba/1"});
  CHECK(
      pointers(cluster({{"pg_hba", {"host all app 10.0.0.0/8 md5"}}, {"parameters", {{"work_mem", "4MB"}}}}))
          .empty());
}

TEST_CASE("the configuration hash changes with parameters, rules and superuser access only",
          "[cluster][configuration]") {
  PostgresConfiguration base;
  PostgresConfiguration changed = base;
  changed.parameters["work_mem"] = "8MB";
  PostgresConfiguration rules = base;
  rules.pg_hba = {"host all all all reject"};
  PostgresConfiguration closed = base;
  closed.superuser_access = false;
  std::set<std::string> hashes = {configuration_hash(base), configuration_hash(changed),
                                  configuration_hash(rules), configuration_hash(closed)};
  CHECK(hashes.size() == 4);
  CHECK(configuration_hash(postgres_configuration(Json::object())) == configuration_hash(base));
}

TEST_CASE("a reloadable change is recorded as applied by a reload, without restarting anything",
          "[cluster][configuration]") {
  World world(three_instances());
  world.settle();
  report(world, configuration_hash({}), "");
  world.pass();
  CHECK(world.parent["status"]["configuration"]["appliedBy"] == "Start");
  world.set_spec("postgresql", {{"parameters", {{"work_mem", "8MB"}}}});
  std::string wanted = configuration_hash(postgres_configuration(world.parent["spec"]));
  world.pass();
  CHECK(world.parent["status"]["configuration"]["phase"] == "Applying");
  report(world, wanted, "");
  world.pass();
  CHECK(world.parent["status"]["configuration"]["phase"] == "Applied");
  CHECK(world.parent["status"]["configuration"]["appliedBy"] == "Reload");
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
}

TEST_CASE("a pending restart rolls the replicas first, highest serial first, then the primary by switchover",
          "[cluster][configuration]") {
  World world(three_instances());
  world.settle();
  world.set_spec("postgresql", {{"parameters", {{"max_connections", "200"}}}});
  std::string wanted = configuration_hash(postgres_configuration(world.parent["spec"]));
  report(world, wanted, "max_connections");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2"});  // db-3 restarts first
  CHECK(world.parent["status"]["configuration"]["appliedBy"] == "Restart");
  CHECK(world.parent["status"]["configuration"]["restartParameters"] == Json::array({"max_connections"}));
  world.pass();  // recreated: its new PostgreSQL loaded the parameter at start
  REQUIRE(world.has("Pod", "db-3"));
  world.set_ready("db-3", true);
  world.annotate("db-3", "opctl.io/config-hash", wanted);
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-3"});
  world.pass();
  world.set_ready("db-2", true);
  world.annotate("db-2", "opctl.io/config-hash", wanted);
  world.annotate("db-2", "opctl.io/received-lsn", "0/5000000");
  world.annotate("db-3", "opctl.io/received-lsn", "0/4000000");
  CHECK(world.parent["status"]["configuration"]["pendingRestart"] == Json::array({"db-1"}));
  world.managers_play_lease = false;
  world.pass();
  // The primary goes last, by switchover to the most advanced replica, never deleted first.
  CHECK(world.status("targetPrimary") == "db-2");
  CHECK(world.has("Pod", "db-1"));
}

TEST_CASE("a lowered max_connections waits for the primary's own restart before any replica restarts",
          "[cluster][configuration]") {
  // Given the primary reports a pending decrease, the pass should restart no replica (a standby may not run
  // with less than its primary) and wait for the primary's manager to restart PostgreSQL in place.
  World world(three_instances());
  world.settle();
  world.set_spec("postgresql", {{"parameters", {{"max_connections", "50"}}}});
  std::string wanted = configuration_hash(postgres_configuration(world.parent["spec"]));
  report(world, wanted, "max_connections");
  world.annotate("db-1", "opctl.io/pending-restart-decrease", "max_connections");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.phase() == "RollingUpdate");
  CHECK(world.status("targetPrimary") == "db-1");
  // Restarted in place: it reports nothing pending any more, and the replicas go next, highest serial first.
  world.annotate("db-1", "opctl.io/pending-restart-decrease", "");
  world.annotate("db-1", "opctl.io/pending-restart", "");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2"});
  CHECK(world.status("targetPrimary") == "db-1");
}
