#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;

TEST_CASE("scaling 3 to 5 adds one replica per pass, in serial order", "[cluster][scaling]") {
  World world(three_instances());
  world.settle();
  world.set_spec("instances", 5);
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3", "db-4"});
  CHECK(world.role("db-4") == "replica");
  CHECK(world.phase() == "CreatingReplica");
  world.pass();  // db-4 is not Ready yet: no db-5
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3", "db-4"});
  world.set_ready("db-4", true);
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3", "db-4", "db-5"});
  world.set_ready("db-5", true);
  world.pass();
  CHECK(world.phase() == "Healthy");
  CHECK(world.parent["status"]["latestGeneratedNode"] == 5);
}

TEST_CASE("scaling 5 to 2 removes the highest-serial replicas one per pass, never the primary",
          "[cluster][scaling]") {
  World world(three_instances());
  world.set_spec("instances", 5);
  world.settle();
  REQUIRE(world.names("Pod") == Names{"db-1", "db-2", "db-3", "db-4", "db-5"});

  SECTION("with the first instance as primary") {
    world.set_spec("instances", 2);
    world.pass();
    CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3", "db-4"});
    CHECK(world.names("PersistentVolumeClaim") == Names{"db-1", "db-2", "db-3", "db-4"});
    CHECK(world.phase() == "ScalingDown");
    world.pass();
    CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
    world.pass();
    CHECK(world.names("Pod") == Names{"db-1", "db-2"});
    CHECK(world.names("PersistentVolumeClaim") == Names{"db-1", "db-2"});
    world.pass();
    CHECK(world.phase() == "Healthy");
  }
  SECTION("with the highest serial as primary") {
    world.set_lease_holder("db-5");  // the instances failed over: db-5 was the most advanced
    world.pass();
    REQUIRE(world.status("currentPrimary") == "db-5");
    world.settle();
    world.set_spec("instances", 2);
    world.settle();
    CHECK(world.names("Pod") == Names{"db-1", "db-5"});
    CHECK(world.primary_pods() == "db-5");
  }
  SECTION("even when the highest-serial replica is not Ready") {
    world.set_ready("db-5", false);
    world.set_spec("instances", 4);
    world.pass();
    CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3", "db-4"});
  }
}

TEST_CASE("serials are never reused after a scale-down", "[cluster][scaling]") {
  World world(three_instances());
  world.settle();
  world.set_spec("instances", 2);
  world.settle();
  CHECK(world.names("Pod") == Names{"db-1", "db-2"});
  world.set_spec("instances", 3);
  world.settle();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-4"});
  CHECK(world.parent["status"]["latestGeneratedNode"] == 4);

  SECTION("even when status was lost, the children remember the highest serial") {
    world.parent["status"] = Json::object();
    world.set_spec("instances", 4);
    world.settle();
    CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-4", "db-5"});
    CHECK(world.primary_pods() == "db-1");
  }
}

TEST_CASE("retainOnScaleDown keeps the removed instance's volume, detached and never reused",
          "[cluster][scaling]") {
  World world(three_instances());
  world.set_spec("storage", {{"size", "1Gi"}, {"retainOnScaleDown", true}});
  world.settle();
  world.set_spec("instances", 2);
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2"});
  REQUIRE(world.has("PersistentVolumeClaim", "db-3"));
  CHECK(world.child("PersistentVolumeClaim", "db-3")["metadata"]["annotations"]["opctl.io/detached"] ==
        "true");
  world.settle();
  CHECK(world.phase() == "Healthy");
  CHECK(world.parent["status"]["instances"] == 2);
  CHECK(world.has("PersistentVolumeClaim", "db-3"));
  world.set_spec("instances", 3);
  world.settle();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-4"});
  CHECK(world.has("PersistentVolumeClaim", "db-3"));

  SECTION("a detached volume deleted by hand is not recreated") {
    world.remove("PersistentVolumeClaim", "db-3");
    world.pass();
    CHECK_FALSE(world.has("PersistentVolumeClaim", "db-3"));
  }
}

TEST_CASE("without retainOnScaleDown the removed instance's volume is deleted", "[cluster][scaling]") {
  World world(three_instances());
  world.settle();
  world.set_spec("instances", 1);
  world.settle();
  CHECK(world.names("PersistentVolumeClaim") == Names{"db-1"});
  CHECK(world.names("Pod") == Names{"db-1"});
}
