#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;

namespace {

World healthy_for_requests() {
  World world(three_instances());
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  return world;
}

void ask_cluster(World& world, const std::string& annotation, const std::string& value) {
  world.parent["metadata"]["annotations"][annotation] = value;
}

}  // namespace

TEST_CASE("opctl cluster restart: a new opctl.io/restarted-at rolls every instance, replicas first",
          "[cluster][requests]") {
  World world = healthy_for_requests();
  std::string hash = world.children["Pod/db-1"]["metadata"]["annotations"]["opctl.io/pod-spec-hash"];
  ask_cluster(world, "opctl.io/restarted-at", "2026-12-05T10:00:00Z");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2"});
  CHECK(world.phase() == "RollingUpdate");
  world.pass();
  REQUIRE(world.has("Pod", "db-3"));
  CHECK(world.children["Pod/db-3"]["metadata"]["annotations"]["opctl.io/pod-spec-hash"] != hash);
  world.settle();
  CHECK(world.phase() == "Healthy");
  for (const auto& name : world.names("Pod"))
    CHECK(world.children["Pod/" + name]["metadata"]["annotations"]["opctl.io/pod-spec-hash"] != hash);

  // The same value again is no new request: nothing moves.
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.phase() == "Healthy");
}

TEST_CASE("opctl cluster restart CLUSTER INSTANCE: a replica's Pod is recreated once",
          "[cluster][requests]") {
  World world = healthy_for_requests();
  ask_cluster(world, "opctl.io/restart-instance", "db-2@20261205T100000.000Z");
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-3"});
  CHECK(world.phase() == "RestartingInstance");
  CHECK(world.status("lastRestartRequest") == "db-2@20261205T100000.000Z");
  world.pass();
  REQUIRE(world.has("Pod", "db-2"));
  world.set_ready("db-2", true);
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.phase() == "Healthy");
}

TEST_CASE("opctl cluster restart CLUSTER PRIMARY restarts the primary in place, no failover",
          "[cluster][requests]") {
  World world = healthy_for_requests();
  ask_cluster(world, "opctl.io/restart-instance", "db-1@1");
  world.pass();
  CHECK_FALSE(world.has("Pod", "db-1"));
  CHECK(world.phase() == "RestartingPrimary");
  CHECK(world.status("targetPrimary") == "db-1");
  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  CHECK(world.role("db-1") == "primary");
  world.set_ready("db-1", true);
  world.pass();
  CHECK(world.phase() == "Healthy");
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
}

TEST_CASE("a restart request for an instance that does not run is reported, once", "[cluster][requests]") {
  World world = healthy_for_requests();
  ask_cluster(world, "opctl.io/restart-instance", "db-7@1");
  world.pass();
  CHECK(world.condition("Degraded"));
  CHECK(world.reason("Degraded") == "RestartRequestIgnored");
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  world.pass();
  CHECK_FALSE(world.condition("Degraded"));
}
