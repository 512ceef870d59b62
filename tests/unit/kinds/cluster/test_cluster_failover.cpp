#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;
using std::chrono::seconds;

namespace {

World healthy_cluster(int failover_delay = 0) {
  World world(three_instances());
  world.set_spec("failoverDelay", failover_delay);
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  world.annotate("db-2", "opctl.io/received-lsn", "0/3000060");
  world.annotate("db-2", "opctl.io/replay-lsn", "0/3000060");
  world.annotate("db-3", "opctl.io/received-lsn", "0/3000100");
  world.annotate("db-3", "opctl.io/replay-lsn", "0/3000028");
  return world;
}

}  // namespace

TEST_CASE("a primary that is not Ready fails over at once to the replica with the highest LSN",
          "[cluster][failover]") {
  World world = healthy_cluster();
  world.set_ready("db-1", false);
  auto result = world.pass();
  CHECK(world.status("currentPrimary") == "db-3");
  CHECK(world.status("targetPrimary") == "db-3");
  // -rw follows at once: db-3 carries the primary label, nothing else does.
  CHECK(world.primary_pods() == "db-3");
  // The old primary is stopped, to come back as a replica on its volume.
  CHECK_FALSE(world.has("Pod", "db-1"));
  CHECK(world.has("PersistentVolumeClaim", "db-1"));
  CHECK(world.phase() == "FailingOver");
  CHECK(world.status("phaseReason").find("from db-1 to db-3") != std::string::npos);
  CHECK(result.requeue_after.has_value());
  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  CHECK(world.role("db-1") == "replica");
  world.settle();
  CHECK(world.phase() == "Healthy");
  CHECK(world.primary_pods() == "db-3");
}

TEST_CASE("a primary Pod that is gone fails over too", "[cluster][failover]") {
  World world = healthy_cluster();
  world.remove("Pod", "db-1");
  world.pass();
  CHECK(world.status("currentPrimary") == "db-3");
  CHECK(world.primary_pods() == "db-3");
  CHECK(world.role("db-1") == "replica");  // recreated at once on its volume, as a replica
}

TEST_CASE("failoverDelay is respected, and a primary that recovers in time keeps its role",
          "[cluster][failover]") {
  World world = healthy_cluster(30);
  world.set_ready("db-1", false);
  auto result = world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.primary_pods() == "db-1");
  CHECK(world.phase() == "FailingOver");
  CHECK(world.reason("Progressing") == "WaitingForFailoverDelay");
  CHECK(world.status("currentPrimaryFailingSinceTimestamp") == "2026-11-29T16:00:00Z");
  REQUIRE(result.requeue_after);
  CHECK(*result.requeue_after == seconds(30));

  world.clock.advance(seconds(20));
  result = world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(*result.requeue_after == seconds(10));

  SECTION("it recovers: no failover, the clock resets") {
    world.set_ready("db-1", true);
    world.pass();
    CHECK(world.phase() == "Healthy");
    CHECK(world.status("currentPrimaryFailingSinceTimestamp").empty());
    world.clock.advance(seconds(20));
    world.set_ready("db-1", false);
    world.pass();
    CHECK(world.status("currentPrimary") == "db-1");
    CHECK(world.status("currentPrimaryFailingSinceTimestamp") == "2026-11-29T16:00:40Z");
  }
  SECTION("it does not: failover once the delay has passed") {
    world.clock.advance(seconds(9));
    world.pass();
    CHECK(world.status("currentPrimary") == "db-1");
    world.clock.advance(seconds(1));
    world.pass();
    CHECK(world.status("currentPrimary") == "db-3");
    CHECK(world.primary_pods() == "db-3");
  }
}

TEST_CASE("a primary Pod that is gone is recreated while failoverDelay runs", "[cluster][failover]") {
  World world = healthy_cluster(60);
  world.remove("Pod", "db-1");
  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  CHECK(world.role("db-1") == "primary");
  world.set_ready("db-1", true);
  world.pass();
  CHECK(world.phase() == "Healthy");
  CHECK(world.status("currentPrimary") == "db-1");
}

TEST_CASE("no promotion when no replica is Ready", "[cluster][failover]") {
  World world = healthy_cluster();
  world.set_ready("db-1", false);
  world.set_ready("db-2", false);
  world.set_ready("db-3", false);
  auto result = world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.primary_pods() == "db-1");
  CHECK(world.has("Pod", "db-1"));  // not stopped: it may still come back
  CHECK(world.condition("Degraded"));
  CHECK(world.reason("Degraded") == "NoReadyReplica");
  CHECK(result.requeue_after.has_value());
  world.set_ready("db-2", true);
  world.pass();
  CHECK(world.status("currentPrimary") == "db-2");
  CHECK(world.primary_pods() == "db-2");
}

TEST_CASE("a Ready replica with an unknown LSN is not promoted while another's LSN is known",
          "[cluster][failover]") {
  World world = healthy_cluster();
  world.pod("db-2")["metadata"]["annotations"].erase("opctl.io/received-lsn");
  world.pod("db-2")["metadata"]["annotations"].erase("opctl.io/replay-lsn");
  world.set_ready("db-3", false);
  world.set_ready("db-1", false);
  world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.primary_pods() == "db-1");
  CHECK(world.condition("Degraded"));
  CHECK(world.reason("Degraded") == "UnknownReplicaLsn");
  CHECK(world.status("phaseReason").find("db-3 has received 0/3000100") != std::string::npos);
}

TEST_CASE("a replica reporting an error is ranked last", "[cluster][failover]") {
  World world = healthy_cluster();
  world.annotate("db-3", "opctl.io/instance-error", "WAL receiver down");
  world.set_ready("db-1", false);
  world.pass();
  CHECK(world.status("currentPrimary") == "db-2");
}

TEST_CASE("the generic opctl.io/lsn annotation stands in for both positions", "[cluster][failover]") {
  World world(three_instances());
  world.settle();
  world.annotate("db-2", "opctl.io/lsn", "0/A000000");
  world.annotate("db-3", "opctl.io/lsn", "0/9FFFFFF");
  world.set_ready("db-1", false);
  world.pass();
  CHECK(world.status("currentPrimary") == "db-2");
}

TEST_CASE("a single instance is not failed over: there is nothing to fail over to", "[cluster][failover]") {
  World world({{"instances", 1}, {"imageName", "postgres:16.4"}, {"storage", {{"size", "1Gi"}}}});
  world.settle();
  world.set_ready("db-1", false);
  world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.phase() == "WaitingForPrimary");
  CHECK_FALSE(world.condition("Degraded"));
}

TEST_CASE("a primary still bootstrapping is waited for, not failed over", "[cluster][failover]") {
  World world(three_instances());
  world.pass();
  world.clock.advance(seconds(600));
  world.pass();
  CHECK(world.phase() == "SettingUpPrimary");
  CHECK(world.status("currentPrimary").empty());
  CHECK(world.primary_pods() == "db-1");
}

TEST_CASE("a replica whose manager stopped reporting is not promoted; the next one is, if it was not behind",
          "[cluster][failover]") {
  World world = healthy_cluster();
  // Clock 16:00:00. db-3 (the most advanced) last reported 45 s ago: its manager hangs, or its node is cut
  // off.
  world.annotate("db-2", "opctl.io/reported-at", "2026-11-29T15:59:55Z");
  world.annotate("db-3", "opctl.io/reported-at", "2026-11-29T15:59:15Z");
  world.set_ready("db-1", false);
  world.pass();
  CHECK(world.status("currentPrimary") == "db-1");  // db-3 may hold commits db-2 lacks
  CHECK(world.primary_pods() == "db-1");
  CHECK(world.status("phaseReason").find("db-3 cannot be promoted (its last report is 45s old") !=
        std::string::npos);

  SECTION("the stale replica was behind the fresh one: the fresh one is promoted") {
    world.annotate("db-3", "opctl.io/received-lsn", "0/3000000");
    world.annotate("db-3", "opctl.io/replay-lsn", "0/3000000");
    world.pass();
    CHECK(world.status("currentPrimary") == "db-2");
    CHECK(world.primary_pods() == "db-2");
  }
  SECTION("a report just inside the 30 s is fresh") {
    world.annotate("db-3", "opctl.io/reported-at", "2026-11-29T15:59:31Z");
    world.pass();
    CHECK(world.status("currentPrimary") == "db-3");
  }
}

TEST_CASE("a replica on a node that is not Ready is not promoted", "[cluster][failover]") {
  World world = healthy_cluster();
  world.set_ready("db-1", false);
  // The node controller turned db-3's Ready off while its containers were last seen ready; db-3 was ahead.
  world.pod("db-3")["status"]["conditions"] = Json::array(
      {{{"type", "Ready"}, {"status", "False"}}, {{"type", "ContainersReady"}, {"status", "True"}}});
  world.pod("db-3")["status"]["containerStatuses"] =
      Json::array({{{"name", "postgres"},
                    {"ready", true},
                    {"state", {{"running", {{"startedAt", "2026-11-29T15:00:00Z"}}}}}}});
  world.annotate("db-3", "opctl.io/instance-role", "replica");
  world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.status("phaseReason").find("db-3 cannot be promoted (its node is not Ready)") !=
        std::string::npos);
}
