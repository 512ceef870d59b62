#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;

namespace {

constexpr const char* k_old = "ghcr.io/cloudnative-pg/postgresql:16.4";
constexpr const char* k_new = "ghcr.io/cloudnative-pg/postgresql:16.6";

World updating_cluster(const std::string& method, const std::string& strategy = "unsupervised") {
  World world(three_instances());
  world.set_spec("primaryUpdateMethod", method);
  world.set_spec("primaryUpdateStrategy", strategy);
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  world.set_spec("imageName", k_new);
  return world;
}

// Passes through the replicas: db-3 then db-2, each recreated and waited for.
void update_replicas(World& world) {
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2"});
  CHECK(world.phase() == "RollingUpdate");
  world.pass();
  REQUIRE(world.has("Pod", "db-3"));
  CHECK(world.image("db-3") == k_new);
  CHECK(world.role("db-3") == "replica");
  world.pass();  // db-3 is not Ready yet: db-2 waits
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.image("db-2") == k_old);
  world.set_ready("db-3", true);
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-3"});
  world.pass();
  CHECK(world.image("db-2") == k_new);
  world.set_ready("db-2", true);
  CHECK(world.image("db-1") == k_old);
  CHECK(world.primary_pods() == "db-1");
}

}  // namespace

TEST_CASE("a new image rolls through the replicas, highest serial first, then switches over",
          "[cluster][rolling]") {
  World world = updating_cluster("switchover");
  update_replicas(world);
  world.annotate("db-2", "opctl.io/received-lsn", "0/5000000");
  world.annotate("db-3", "opctl.io/received-lsn", "0/4000000");

  // Switchover to the most advanced updated replica, through the Lease: the pass names the target and
  // deletes nothing; the old primary's manager stops it and hands the Lease over.
  world.managers_play_lease = false;
  world.pass();
  CHECK(world.status("targetPrimary") == "db-2");
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.has("Pod", "db-1"));
  CHECK(world.primary_pods() == "db-1");
  CHECK(world.phase() == "Switchover");
  world.pass();
  CHECK(world.reason("Progressing") == "HandingOver");
  CHECK(world.primary_pods() == "db-1");  // never two labelled primary, never a stale target labelled

  // The Lease moved: the new primary is labelled, and the old one, now a replica, is updated.
  world.set_lease_holder("db-2");
  world.pass();
  CHECK(world.status("currentPrimary") == "db-2");
  CHECK(world.primary_pods() == "db-2");
  CHECK(world.role("db-1") == "replica");
  world.managers_play_lease = true;
  world.settle();
  CHECK(world.phase() == "Healthy");
  for (const auto& name : world.names("Pod"))
    CHECK(world.image(name) == k_new);
}

TEST_CASE("primaryUpdateMethod restart restarts the primary in place, without a failover",
          "[cluster][rolling]") {
  World world = updating_cluster("restart");
  update_replicas(world);
  world.pass();
  CHECK_FALSE(world.has("Pod", "db-1"));
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.status("restartingPrimary") == "db-1");
  CHECK(world.phase() == "RestartingPrimary");
  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  CHECK(world.image("db-1") == k_new);
  CHECK(world.role("db-1") == "primary");
  world.pass();  // not Ready yet, failoverDelay 0: still no failover
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.phase() == "RestartingPrimary");
  world.set_ready("db-1", true);
  world.pass();
  CHECK(world.phase() == "Healthy");
  CHECK(world.status("restartingPrimary").empty());
  CHECK(world.primary_pods() == "db-1");
}

TEST_CASE("supervised: the pass stops before the primary until opctl promote says go", "[cluster][rolling]") {
  World world = updating_cluster("switchover", "supervised");
  update_replicas(world);
  auto result = world.pass();
  CHECK(world.phase() == "WaitingForUser");
  CHECK(world.reason("Progressing") == "WaitingForUser");
  CHECK_FALSE(world.condition("Ready"));
  CHECK(world.image("db-1") == k_old);
  CHECK(world.primary_pods() == "db-1");
  CHECK_FALSE(result.requeue_after.has_value());
  world.pass();
  CHECK(world.phase() == "WaitingForUser");

  SECTION("promote a replica: switchover to it") {
    world.parent["metadata"]["annotations"]["opctl.io/promote"] = "db-3";
    world.pass();
    CHECK(world.status("targetPrimary") == "db-3");
    CHECK(world.status("lastPromoteRequest") == "db-3");
    world.settle();
    CHECK(world.primary_pods() == "db-3");
    CHECK(world.image("db-1") == k_new);
    CHECK(world.phase() == "Healthy");
  }
  SECTION("promote the primary itself: restart it in place") {
    world.parent["metadata"]["annotations"]["opctl.io/promote"] = "db-1@1";
    world.pass();
    CHECK(world.status("restartingPrimary") == "db-1");
    world.settle();
    CHECK(world.primary_pods() == "db-1");
    CHECK(world.image("db-1") == k_new);
  }
  SECTION("promote something else: ignored, still waiting") {
    world.parent["metadata"]["annotations"]["opctl.io/promote"] = "db-9";
    world.pass();
    CHECK(world.phase() == "WaitingForUser");
    CHECK(world.status("phaseReason").find("db-9 was ignored") != std::string::npos);
    world.pass();
    CHECK(world.status("phaseReason").find("ignored") == std::string::npos);
  }
  SECTION("the spec says go") {
    world.set_spec("primaryUpdateStrategy", "unsupervised");
    world.pass();
    CHECK(world.phase() == "Switchover");
  }
}

TEST_CASE("a single instance is restarted in place: no replica could take over", "[cluster][rolling]") {
  World world({{"instances", 1}, {"imageName", k_old}, {"storage", {{"size", "1Gi"}}}});
  world.settle();
  world.set_spec("imageName", k_new);
  world.pass();
  CHECK(world.status("restartingPrimary") == "db-1");
  world.settle();
  CHECK(world.image("db-1") == k_new);
  CHECK(world.phase() == "Healthy");
}

TEST_CASE("the rolling update waits while any instance is not Ready", "[cluster][rolling]") {
  World world = updating_cluster("switchover");
  world.set_ready("db-2", false);
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.image("db-3") == k_old);
  CHECK(world.reason("Progressing") == "WaitingForInstances");
}

TEST_CASE("a resources change rolls like an image change", "[cluster][rolling]") {
  World world(three_instances());
  world.settle();
  world.set_spec("resources", {{"requests", {{"memory", "1Gi"}}}});
  world.pass();
  CHECK(world.names("Pod") == Names{"db-1", "db-2"});
  world.settle();
  CHECK(world.pod("db-3")["spec"]["containers"][0]["resources"]["requests"]["memory"] == "1Gi");
  CHECK(world.pod("db-1")["spec"]["containers"][0]["resources"]["requests"]["memory"] == "1Gi");
}

TEST_CASE("opctl promote switches over a healthy cluster", "[cluster][rolling]") {
  World world(three_instances());
  world.settle();
  world.parent["metadata"]["annotations"]["opctl.io/promote"] = "db-2";
  world.settle();
  CHECK(world.primary_pods() == "db-2");
  CHECK(world.status("currentPrimary") == "db-2");
  CHECK(world.phase() == "Healthy");
  // The request is acted on once: a later failover is not undone by the stale annotation.
  world.set_lease_holder("db-3");
  world.pass();
  CHECK(world.status("currentPrimary") == "db-3");
  world.settle();
  CHECK(world.status("currentPrimary") == "db-3");
}
