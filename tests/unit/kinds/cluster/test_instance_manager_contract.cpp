// The pass's side of the instance manager contract: what the Pods run, what
// the pass reads back from the managers' annotations (role, positions), and
// and the errors they report. Failover itself is the managers' (the primary
// Lease, test_cluster_failover.cpp and the instance loopback tests).
#include <catch2/catch.hpp>

#include "cluster_world.hpp"
#include "kinds/cluster/cluster_spec.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;

namespace {

// What the kubelet and a running instance manager leave on a Pod.
void running_as(World& world, const std::string& pod, const std::string& role, bool ready) {
  world.set_ready(pod, ready);
  world.pod(pod)["status"]["containerStatuses"] = Json::array(
      {{{"name", "postgres"}, {"state", {{"running", {{"startedAt", "2026-12-01T00:00:00Z"}}}}}}});
  world.annotate(pod, "opctl.io/instance-role", role);
}

World reporting_cluster() {
  World world(three_instances());
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  running_as(world, "db-1", "primary", true);
  world.annotate("db-1", "opctl.io/current-lsn", "0/3000200");
  world.annotate("db-1", "opctl.io/timeline", "1");
  for (const char* replica : {"db-2", "db-3"}) {
    running_as(world, replica, "replica", true);
    world.annotate(replica, "opctl.io/timeline", "1");
    world.annotate(replica, "opctl.io/streaming", "true");
  }
  world.annotate("db-2", "opctl.io/received-lsn", "0/3000060");
  world.annotate("db-2", "opctl.io/replay-lsn", "0/3000060");
  world.annotate("db-3", "opctl.io/received-lsn", "0/3000100");
  world.annotate("db-3", "opctl.io/replay-lsn", "0/3000100");
  return world;
}

}  // namespace

TEST_CASE("instances run the instance manager, with no password in their environment",
          "[cluster][instance]") {
  World world(three_instances());
  world.pass();
  const Json& container = world.pod("db-1")["spec"]["containers"][0];
  CHECK(container["command"] == Json::array({"opctl", "instance", "run"}));
  CHECK(container["readinessProbe"]["exec"]["command"] == Json::array({"opctl", "instance", "ready"}));
  for (const auto& variable : container["env"]) {
    bool from_secret = variable.contains("valueFrom") && variable["valueFrom"].contains("secretKeyRef");
    CHECK_FALSE(from_secret);
  }
  const Json& role = world.child("Role", "db-1");
  bool reads_replication_secret = false;
  for (const auto& rule : role["rules"])
    for (const auto& name : rule.value("resourceNames", Json::array()))
      reads_replication_secret = reads_replication_secret || name == "db-replication";
  CHECK(reads_replication_secret);
  CHECK(opctl::kinds::cluster::k_default_image == std::string("ghcr.io/opctl/postgresql:15-0.1.0"));
}

TEST_CASE("status shows each instance's role, position and lag", "[cluster][instance]") {
  World world = reporting_cluster();
  world.pass();
  const Json& states = world.parent["status"]["instanceStates"];
  REQUIRE(states.size() == 3);
  CHECK(states[0]["name"] == "db-1");
  CHECK(states[0]["role"] == "primary");
  CHECK(states[0]["currentLsn"] == "0/3000200");
  CHECK_FALSE(states[0].contains("lagBytes"));
  CHECK(states[1]["role"] == "replica");
  CHECK(states[1]["streaming"] == true);
  CHECK(states[1]["lagBytes"] == 0x3000200 - 0x3000060);
  CHECK(states[2]["lagBytes"] == 0x3000200 - 0x3000100);
}

TEST_CASE("synchronous replication settings are checked against the instances", "[cluster][spec]") {
  using opctl::kinds::cluster::check_cluster;
  auto resource = [](Json spec) {
    return Json{{"apiVersion", "opctl.io/v1alpha1"},
                {"kind", "Cluster"},
                {"metadata", {{"name", "db"}, {"namespace", "shop"}}},
                {"spec", spec}};
  };
  Json spec = three_instances();
  spec["minSyncReplicas"] = 1;
  spec["maxSyncReplicas"] = 2;
  CHECK(check_cluster(resource(spec)).empty());
  spec["minSyncReplicas"] = 2;
  spec["maxSyncReplicas"] = 1;
  auto issues = check_cluster(resource(spec));
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].field == "spec.minSyncReplicas");
  spec["minSyncReplicas"] = 1;
  spec["maxSyncReplicas"] = 3;
  issues = check_cluster(resource(spec));
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].field == "spec.maxSyncReplicas");
  CHECK(issues[0].message.find("less than instances (3)") != std::string::npos);
}

TEST_CASE("an error an instance reports is a condition of the Cluster, without failing the pass",
          "[cluster][instance]") {
  World world = reporting_cluster();
  world.pass();
  CHECK_FALSE(world.condition("InstanceErrors"));
  world.annotate("db-1", "opctl.io/instance-error",
                 "Secret db-app key password holds a control character (a trailing newline?)");
  world.pass();
  CHECK(world.condition("InstanceErrors"));
  CHECK(world.reason("InstanceErrors") == "InstanceReportsError");
  CHECK(world.message("InstanceErrors") ==
        "db-1: Secret db-app key password holds a control character (a trailing newline?)");
  CHECK_FALSE(world.condition("Degraded"));
  CHECK(world.phase() == "Healthy");
}

TEST_CASE("a new instance error is told once as a Warning Event on the Cluster", "[cluster][instance]") {
  World world = reporting_cluster();
  auto warnings = [](const opctl::kinds::ReconcileResult& result) {
    std::vector<std::string> messages;
    for (const auto& event : result.events)
      if (event.type == "Warning" && event.reason == "InstanceReportsError")
        messages.push_back(event.message);
    return messages;
  };
  CHECK(warnings(world.pass()).empty());
  world.annotate("db-1", "opctl.io/instance-error",
                 "refusing to run initdb: /var/lib/postgresql/data/pgdata ...");
  CHECK(warnings(world.pass()) ==
        std::vector<std::string>{"db-1: refusing to run initdb: /var/lib/postgresql/data/pgdata ..."});
  CHECK(warnings(world.pass()).empty());  // the condition holds it meanwhile
  world.annotate("db-2", "opctl.io/instance-error", "pg_basebackup failed");
  CHECK(warnings(world.pass()).size() == 1);
}
