// Hibernation through passes: the replicas' Pods go first, then the
// primary's; the volumes, Secrets and Services stay; waking starts the same
// primary first, on its volume, and the replicas once it serves.
#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;

namespace {

World awake_cluster() {
  World world(three_instances());
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  REQUIRE(world.lease_holder() == "db-1");
  return world;
}

void set_annotation(World& world, const char* key, const std::string& value) {
  world.parent["metadata"]["annotations"][key] = value;
}

}  // namespace

TEST_CASE("hibernation stops the replicas first, then the primary, and keeps volumes, Secrets and Services",
          "[cluster][hibernation]") {
  // Given a healthy 3-instance Cluster annotated opctl.io/hibernation: on, we should delete the
  // replicas' Pods, then (once they are gone) the primary's, and report Hibernated with nothing left to do.
  World world = awake_cluster();
  set_annotation(world, "opctl.io/hibernation", "on");
  auto result = world.pass();
  CHECK(world.names("Pod") == Names{"db-1"});
  CHECK(world.phase() == "Hibernating");
  CHECK(world.reason("Progressing") == "StoppingReplicas");
  CHECK(world.reason("Hibernated") == "Hibernating");
  CHECK_FALSE(world.condition("Hibernated"));
  CHECK(result.requeue_after.has_value());

  result = world.pass();
  CHECK(world.names("Pod").empty());
  CHECK(world.reason("Progressing") == "StoppingPrimary");
  world.set_lease_holder("");  // db-1's manager frees the Lease as it shuts down

  result = world.pass();
  CHECK(world.phase() == "Hibernated");
  CHECK(world.condition("Hibernated"));
  CHECK(world.reason("Ready") == "Hibernated");
  CHECK_FALSE(world.condition("Ready"));
  CHECK_FALSE(world.progressing());
  CHECK_FALSE(world.condition("Degraded"));
  CHECK_FALSE(result.requeue_after.has_value());
  CHECK(world.names("PersistentVolumeClaim") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.has("Secret", "db-app"));
  CHECK(world.has("Secret", "db-superuser"));
  CHECK(world.has("Service", "db-rw"));
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.parent["status"].value("hibernated", false));

  // Further passes change nothing: no Pod, no failover, no Job.
  world.pass();
  CHECK(world.names("Pod").empty());
  CHECK(world.names("Job").empty());
  CHECK(world.status("targetPrimary") == "db-1");
}

TEST_CASE("waking starts the same primary first on its volume, then the replicas", "[cluster][hibernation]") {
  // Given a hibernated Cluster whose annotation goes "off", we should create db-1's Pod alone, hold
  // the replicas until it holds the Lease and is Ready, then create them; db-1 stays the primary.
  World world = awake_cluster();
  world.managers_play_lease = false;
  set_annotation(world, "opctl.io/hibernation", "on");
  world.pass();
  world.pass();
  world.set_lease_holder("");
  world.pass();
  REQUIRE(world.phase() == "Hibernated");

  set_annotation(world, "opctl.io/hibernation", "off");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1"});
  CHECK(world.phase() == "WakingUp");
  CHECK(world.reason("Progressing") == "StartingPrimary");
  CHECK_FALSE(world.condition("Hibernated"));
  // Running but not serving yet: the replicas still wait.
  world.set_ready("db-1", false);
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1"});
  world.set_ready("db-1", true);
  world.set_lease_holder("db-1");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK_FALSE(world.parent["status"].contains("hibernated"));
  world.settle();
  CHECK(world.phase() == "Healthy");
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.primary_pods() == "db-1");
}

TEST_CASE("removing the hibernation annotation wakes the Cluster like \"off\"", "[cluster][hibernation]") {
  World world = awake_cluster();
  set_annotation(world, "opctl.io/hibernation", "on");
  world.pass();
  world.pass();
  REQUIRE(world.names("Pod").empty());
  world.parent["metadata"]["annotations"].erase("opctl.io/hibernation");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1"});
  CHECK(world.phase() == "WakingUp");
}

TEST_CASE("a hibernation value that cannot be read makes the Cluster Invalid and changes nothing",
          "[cluster][hibernation]") {
  World world = awake_cluster();
  set_annotation(world, "opctl.io/hibernation", "yes");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.phase() == "Invalid");
  CHECK(world.reason("Degraded") == "InvalidSpec");
  CHECK(world.message("Degraded") ==
        "metadata.annotations: opctl.io/hibernation: \"yes\" must be \"on\" or \"off\"");

  // Once hibernating, a typo does not wake it either.
  set_annotation(world, "opctl.io/hibernation", "on");
  world.pass();
  world.pass();
  world.pass();
  REQUIRE(world.names("Pod").empty());
  set_annotation(world, "opctl.io/hibernation", "of");
  world.pass();
  CHECK(world.names("Pod").empty());
  CHECK(world.phase() == "Invalid");
}

TEST_CASE("a switchover under way is called off by hibernation: the Lease's holder stops last",
          "[cluster][hibernation]") {
  World world = awake_cluster();
  world.managers_play_lease = false;
  world.parent["status"]["targetPrimary"] = "db-2";  // a switchover db-1 has not handed over yet
  set_annotation(world, "opctl.io/hibernation", "on");
  world.pass();
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.names("Pod") == Names{"db-1"});
}
