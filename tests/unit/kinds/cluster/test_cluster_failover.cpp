// The pass's part in failover, now that the instance managers decide who is
// the primary through the primary Lease: it records what they did, waits for
// them when the primary is gone, and asks for a switchover away from a
// primary that holds its Lease but does not serve.
#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using std::chrono::seconds;

namespace {

World healthy_cluster(int failover_delay = 0) {
  World world(three_instances());
  world.set_spec("failoverDelay", failover_delay);
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  REQUIRE(world.lease_holder() == "db-1");
  world.annotate("db-2", "opctl.io/received-lsn", "0/3000060");
  world.annotate("db-2", "opctl.io/replay-lsn", "0/3000060");
  world.annotate("db-3", "opctl.io/received-lsn", "0/3000100");
  world.annotate("db-3", "opctl.io/replay-lsn", "0/3000028");
  world.managers_play_lease = false;  // each test moves the Lease as the managers would
  return world;
}

// The kubelet's view of a Pod whose manager runs but which is not Ready.
void running_not_ready(World& world, const std::string& pod) {
  world.set_ready(pod, false);
  world.pod(pod)["status"]["containerStatuses"] =
      Json::array({{{"name", "postgres"},
                    {"ready", false},
                    {"state", {{"running", {{"startedAt", "2026-11-29T15:00:00Z"}}}}}}});
}

}  // namespace

TEST_CASE("the pass creates the primary Lease, metadata only; the instances hold it", "[cluster][failover]") {
  World world = healthy_cluster();
  const Json& lease = world.child("Lease", "db-primary");
  CHECK(lease["apiVersion"] == "coordination.k8s.io/v1");
  CHECK(lease["metadata"]["labels"]["opctl.io/cluster"] == "db");
  // What the pass lists has no spec: applying it never touches the holder.
  bool listed_without_spec = false;
  for (const auto& child : world.last.children)
    if (child.value("kind", "") == "Lease") listed_without_spec = !child.contains("spec");
  CHECK(listed_without_spec);
  CHECK(world.lease_holder() == "db-1");
}

TEST_CASE("a primary that is gone: the pass waits for its Lease to expire and recreates its Pod",
          "[cluster][failover]") {
  World world = healthy_cluster();
  world.remove("Pod", "db-1");
  world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.reason("Progressing") == "WaitingForLease");
  CHECK(world.status("phaseReason").find("a replica takes over when the primary Lease of db-1 expires") !=
        std::string::npos);
  REQUIRE(world.has("Pod", "db-1"));  // recreated on its volume; it rejoins as the Lease says
}

TEST_CASE("the instances failed over without a pass: the next pass records it and -rw follows the holder",
          "[cluster][failover]") {
  World world = healthy_cluster();
  running_not_ready(world, "db-1");
  world.set_lease_holder("db-3");
  auto result = world.pass();
  CHECK(world.status("targetPrimary") == "db-3");
  CHECK(world.status("currentPrimary") == "db-3");
  CHECK(world.primary_pods() == "db-3");
  REQUIRE(result.events.size() == 1);
  CHECK(result.events[0].reason == "FailedOver");
  CHECK(result.events[0].message.find("db-3 took the primary Lease from db-1") != std::string::npos);
  // db-1 is not deleted: its manager fenced itself and follows db-3.
  CHECK(world.has("Pod", "db-1"));
  CHECK(world.role("db-1") == "replica");
  world.pass();
  CHECK(world.last.events.empty());  // said once
}

TEST_CASE("a primary that holds its Lease but is not Ready is switched away from, after the grace",
          "[cluster][failover]") {
  World world = healthy_cluster();
  running_not_ready(world, "db-1");
  auto result = world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.reason("Progressing") == "WaitingForFailoverDelay");
  REQUIRE(result.requeue_after);
  CHECK(*result.requeue_after == seconds(30));
  world.clock.advance(seconds(30));
  world.pass();
  // db-3 received the most: the pass asks db-1 to hand over, and deletes nothing.
  CHECK(world.status("targetPrimary") == "db-3");
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.phase() == "Switchover");
  CHECK(world.has("Pod", "db-1"));
  world.pass();
  CHECK(world.reason("Progressing") == "HandingOver");
  world.set_lease_holder("db-3");  // db-1's manager handed over
  world.pass();
  CHECK(world.status("currentPrimary") == "db-3");
  CHECK(world.primary_pods() == "db-3");
}

TEST_CASE("failoverDelay is respected, and a primary that recovers in time keeps its role",
          "[cluster][failover]") {
  World world = healthy_cluster(60);
  running_not_ready(world, "db-1");
  auto result = world.pass();
  CHECK(world.status("currentPrimaryFailingSinceTimestamp") == "2026-11-29T16:00:00Z");
  CHECK(*result.requeue_after == seconds(60));
  world.clock.advance(seconds(40));
  world.pass();
  CHECK(world.status("targetPrimary") == "db-1");
  world.set_ready("db-1", true);
  world.pass();
  CHECK(world.phase() == "Healthy");
  CHECK(world.status("currentPrimaryFailingSinceTimestamp").empty());
}

TEST_CASE("no switchover when no replica can take over", "[cluster][failover]") {
  World world = healthy_cluster();
  running_not_ready(world, "db-1");
  world.set_ready("db-2", false);
  world.set_ready("db-3", false);
  world.clock.advance(seconds(30));
  world.pass();
  world.clock.advance(seconds(30));
  world.pass();
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.condition("Degraded"));
  CHECK(world.reason("Degraded") == "NoReadyReplica");
}

TEST_CASE("the switchover target is chosen as before: unknown LSNs, errors and stale reports rank last",
          "[cluster][failover]") {
  auto target_after_grace = [](World& world) {
    running_not_ready(world, "db-1");
    world.pass();
    world.clock.advance(seconds(30));
    world.pass();
    return world.status("targetPrimary");
  };
  SECTION("an error ranks a replica last") {
    World world = healthy_cluster();
    world.annotate("db-3", "opctl.io/instance-error", "WAL receiver down");
    CHECK(target_after_grace(world) == "db-2");
  }
  SECTION("an unknown LSN is not promoted while another's is known") {
    World world = healthy_cluster();
    world.pod("db-2")["metadata"]["annotations"].erase("opctl.io/received-lsn");
    world.pod("db-2")["metadata"]["annotations"].erase("opctl.io/replay-lsn");
    world.set_ready("db-3", false);
    CHECK(target_after_grace(world) == "db-1");
    CHECK(world.reason("Degraded") == "UnknownReplicaLsn");
  }
  SECTION("a stale report that was ahead holds the switchover back") {
    World world = healthy_cluster();
    world.annotate("db-2", "opctl.io/reported-at", "2026-11-29T16:00:25Z");
    world.annotate("db-3", "opctl.io/reported-at", "2026-11-29T15:59:15Z");
    CHECK(target_after_grace(world) == "db-1");
    CHECK(world.status("phaseReason").find("db-3 cannot be promoted") != std::string::npos);
  }
}

TEST_CASE("a single instance is not switched away from: there is nothing to switch to",
          "[cluster][failover]") {
  World world({{"instances", 1}, {"imageName", "postgres:16.4"}, {"storage", {{"size", "1Gi"}}}});
  world.settle();
  world.managers_play_lease = false;
  running_not_ready(world, "db-1");
  world.pass();
  world.clock.advance(seconds(30));
  world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.reason("Degraded") == "PrimaryNotReady");
}

TEST_CASE("a primary still bootstrapping is waited for", "[cluster][failover]") {
  World world(three_instances());
  world.pass();
  world.clock.advance(seconds(600));
  world.pass();
  CHECK(world.phase() == "SettingUpPrimary");
  CHECK(world.status("currentPrimary").empty());
  CHECK(world.primary_pods() == "db-1");
}
