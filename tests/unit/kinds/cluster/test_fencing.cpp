// Fencing as the pass sees it: fenced instances are never candidates, a
// fenced replica is not waited for, and a fenced primary is neither failed
// over nor switched away from; the instance managers do the stopping.
#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;
using std::chrono::seconds;

namespace {

World fenceable_cluster() {
  World world(three_instances());
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  world.annotate("db-2", "opctl.io/received-lsn", "0/3000100");
  world.annotate("db-2", "opctl.io/replay-lsn", "0/3000100");
  world.annotate("db-3", "opctl.io/received-lsn", "0/3000060");
  world.annotate("db-3", "opctl.io/replay-lsn", "0/3000060");
  world.managers_play_lease = false;
  return world;
}

void fence(World& world, const std::string& value) {
  world.parent["metadata"]["annotations"]["opctl.io/fenced-instances"] = value;
}

// What the kubelet and a fenced instance's manager leave on its Pod: running, not Ready, role fenced.
void fenced_pod(World& world, const std::string& pod) {
  world.set_ready(pod, false);
  world.pod(pod)["status"]["containerStatuses"] =
      Json::array({{{"name", "postgres"},
                    {"ready", false},
                    {"state", {{"running", {{"startedAt", "2026-11-29T15:00:00Z"}}}}}}});
  world.annotate(pod, "opctl.io/instance-role", "fenced");
}

}  // namespace

TEST_CASE("a fenced replica keeps its Pod, is not waited for, and the Cluster says Fenced",
          "[cluster][fencing]") {
  World world = fenceable_cluster();
  fence(world, R"(["db-3"])");
  fenced_pod(world, "db-3");
  auto result = world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.phase() == "Fenced");
  CHECK_THAT(world.status("phaseReason"), Catch::StartsWith("db-3 is fenced (opctl.io/fenced-instances)"));
  CHECK(world.condition("Fenced"));
  CHECK(world.message("Fenced") == "fenced: db-3");
  CHECK_FALSE(world.progressing());
  CHECK_FALSE(world.condition("Degraded"));
  CHECK_FALSE(result.requeue_after.has_value());

  fence(world, "[]");
  world.set_ready("db-3", true);
  world.pass();
  CHECK(world.phase() == "Healthy");
  CHECK_FALSE(world.condition("Fenced"));
}

TEST_CASE("a fenced primary is never switched away from: the Cluster has no primary until it is unfenced",
          "[cluster][fencing]") {
  // Given db-1 (the primary, holding its Lease) fenced and not Ready far past the grace, we should keep
  // db-1 as the target, start no switchover, and say Fenced.
  World world = fenceable_cluster();
  fence(world, R"(["db-1"])");
  fenced_pod(world, "db-1");
  world.pass();
  world.clock.advance(seconds(600));
  world.pass();
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.phase() == "Fenced");
  CHECK_THAT(world.status("phaseReason"), Catch::Contains("the Cluster has no primary until it is unfenced"));
  CHECK_FALSE(world.condition("Ready"));
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});

  // ["*"] fences it as well.
  fence(world, R"(["*"])");
  world.pass();
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.message("Fenced") == "every instance is fenced");
}

TEST_CASE("a fenced replica is never chosen for a switchover, however far it is", "[cluster][fencing]") {
  // Given the primary not Ready past the grace, and db-2 (the furthest replica) fenced, we should
  // switch over to db-3.
  World world = fenceable_cluster();
  fence(world, R"(["db-2"])");
  fenced_pod(world, "db-2");
  world.set_ready("db-1", false);
  world.pod("db-1")["status"]["containerStatuses"] =
      Json::array({{{"name", "postgres"}, {"state", {{"running", Json::object()}}}}});
  world.pass();
  world.clock.advance(seconds(30));
  world.pass();
  CHECK(world.status("targetPrimary") == "db-3");
}

TEST_CASE("a fenced-instances value that cannot be read makes the Cluster Invalid and changes nothing",
          "[cluster][fencing]") {
  World world = fenceable_cluster();
  fence(world, R"(["db-1"])");
  fenced_pod(world, "db-1");
  world.pass();
  fence(world, "db-1");  // a typo: not JSON
  world.clock.advance(seconds(600));
  world.pass();
  CHECK(world.phase() == "Invalid");
  CHECK(world.reason("Degraded") == "InvalidSpec");
  CHECK_THAT(world.message("Degraded"),
             Catch::StartsWith("metadata.annotations: opctl.io/fenced-instances: not JSON"));
  CHECK(world.status("targetPrimary") == "db-1");  // no switchover: the pass changes nothing
}
