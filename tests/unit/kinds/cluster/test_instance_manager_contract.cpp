// The pass's side of the instance manager contract: what the Pods run, what
// the pass reads back from the managers' annotations (role, positions), and
// how it treats replicas that stopped streaming because their primary went.
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

// A Pod deleted while its postgres container still runs (the manager shutting it down); returns the Pod
// as it is, since the fake world forgets a Pod the pass does not list.
Json being_deleted_while_running(World& world, const std::string& pod) {
  running_as(world, pod, "primary", false);
  world.pod(pod)["metadata"]["deletionTimestamp"] = "2026-11-29T16:00:00Z";
  return world.pod(pod);
}

World healthy_cluster() {
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
  const Json& role = world.child("Role", "db");
  bool reads_replication_secret = false;
  for (const auto& rule : role["rules"])
    for (const auto& name : rule.value("resourceNames", Json::array()))
      reads_replication_secret = reads_replication_secret || name == "db-replication";
  CHECK(reads_replication_secret);
  CHECK(opctl::kinds::cluster::k_default_image == std::string("ghcr.io/opctl/postgresql:15-0.1.0"));
}

TEST_CASE("status shows each instance's role, position and lag", "[cluster][instance]") {
  World world = healthy_cluster();
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

TEST_CASE("replicas that stopped streaming with their primary can still be promoted", "[cluster][instance]") {
  World world = healthy_cluster();
  // The primary's PostgreSQL died: nobody is Ready any more, but both
  // replicas' managers still run them as standbys.
  world.set_ready("db-1", false);
  running_as(world, "db-2", "replica", false);
  running_as(world, "db-3", "replica", false);
  world.pass();
  CHECK(world.status("targetPrimary") == "db-3");
  CHECK(world.primary_pods() == "db-3");
}

TEST_CASE("a replica whose manager is not running is not promoted, whatever its position",
          "[cluster][instance]") {
  World world = healthy_cluster();
  world.set_ready("db-1", false);
  running_as(world, "db-2", "replica", false);
  running_as(world, "db-3", "replica", false);
  world.pod("db-3")["status"]["containerStatuses"][0]["state"] = {
      {"waiting", {{"reason", "CrashLoopBackOff"}}}};
  world.pass();
  CHECK(world.status("targetPrimary") == "db-2");
  CHECK(world.primary_pods() == "db-2");
}

TEST_CASE("a primary that is still promoting is not failed over from again", "[cluster][instance]") {
  World world = healthy_cluster();
  world.set_ready("db-1", false);
  world.pass();
  REQUIRE(world.status("targetPrimary") == "db-3");
  // The next pass comes before db-3's manager has promoted it.
  running_as(world, "db-3", "replica", false);
  running_as(world, "db-2", "replica", false);
  world.pass();
  CHECK(world.status("targetPrimary") == "db-3");
  CHECK(world.reason("Progressing") == "Promoting");
  // Promoted: Ready as the primary, the cluster settles.
  running_as(world, "db-3", "primary", true);
  world.settle();
  CHECK(world.status("currentPrimary") == "db-3");
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

TEST_CASE("a primary whose Pod is being deleted shuts down cleanly before a replica is promoted",
          "[cluster][instance]") {
  World world = healthy_cluster();
  Json terminating = being_deleted_while_running(world, "db-1");
  world.pass();
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.reason("Progressing") == "PrimaryShuttingDown");
  // Still there (the kubelet is stopping it), until its manager has stopped PostgreSQL: then the best replica
  // takes over.
  world.children["Pod/db-1"] = terminating;
  world.pod("db-1")["status"]["containerStatuses"][0]["state"] = {{"terminated", {{"exitCode", 0}}}};
  world.pass();
  CHECK(world.status("targetPrimary") == "db-3");
}

TEST_CASE("a primary stuck terminating is failed over from after a while", "[cluster][instance]") {
  World world = healthy_cluster();
  Json terminating = being_deleted_while_running(world, "db-1");
  world.pass();
  CHECK(world.status("targetPrimary") == "db-1");
  world.children["Pod/db-1"] = terminating;
  world.clock.advance(std::chrono::seconds(61));
  world.pass();
  CHECK(world.status("targetPrimary") == "db-3");
}

namespace {

void crashed_and_restarted(World& world, const std::string& pod, const std::string& finished) {
  world.pod(pod)["status"]["containerStatuses"][0]["lastState"] = {
      {"terminated", {{"exitCode", 3}, {"finishedAt", finished}}}};
}

}  // namespace

TEST_CASE("a primary whose PostgreSQL crashed is failed over from even once its container is back",
          "[cluster][instance]") {
  World world = healthy_cluster();
  world.clock.advance(std::chrono::seconds(30));
  // The kubelet restarted the container; the manager serves as the primary again, Ready.
  crashed_and_restarted(world, "db-1", "2026-11-29T16:00:20Z");
  world.pass();
  CHECK(world.status("targetPrimary") == "db-3");
  CHECK(world.status("phaseReason").find("crashed") != std::string::npos);
}

TEST_CASE("a crash long ago, before the primary was named, or with a failoverDelay is not a failover",
          "[cluster][instance]") {
  SECTION("long ago") {
    World world = healthy_cluster();
    world.clock.advance(std::chrono::seconds(200));
    crashed_and_restarted(world, "db-1", "2026-11-29T16:00:20Z");
    world.pass();
    CHECK(world.status("targetPrimary") == "db-1");
  }
  SECTION("before it was named") {
    World world = healthy_cluster();
    world.clock.advance(std::chrono::seconds(30));
    crashed_and_restarted(world, "db-1", "2026-11-29T15:00:00Z");
    world.pass();
    CHECK(world.status("targetPrimary") == "db-1");
  }
  SECTION("with a failoverDelay the primary that is back in time keeps its role") {
    World world = healthy_cluster();
    world.set_spec("failoverDelay", 30);
    world.clock.advance(std::chrono::seconds(30));
    crashed_and_restarted(world, "db-1", "2026-11-29T16:00:20Z");
    world.pass();
    CHECK(world.status("targetPrimary") == "db-1");
  }
}

TEST_CASE("a primary promoted but not yet seen Ready by the kubelet is not failed over from",
          "[cluster][instance]") {
  World world = healthy_cluster();
  world.set_ready("db-1", false);
  running_as(world, "db-1", "stopped", false);
  world.pass();
  REQUIRE(world.status("targetPrimary") == "db-3");
  // Its manager has promoted it; the readiness probe has not run since.
  running_as(world, "db-3", "primary", false);
  running_as(world, "db-2", "replica", false);
  world.pass();
  CHECK(world.status("targetPrimary") == "db-3");
  CHECK(world.reason("Progressing") == "Promoting");
}

TEST_CASE("an error an instance reports is a condition of the Cluster, without failing the pass",
          "[cluster][instance]") {
  World world = healthy_cluster();
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
  World world = healthy_cluster();
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
