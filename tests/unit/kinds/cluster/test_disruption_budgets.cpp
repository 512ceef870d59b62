// The Cluster's PodDisruptionBudgets, as CloudNativePG keeps them: a drain
// never evicts the primary, nor more than one replica at a time.
#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;

TEST_CASE("a Cluster keeps a PodDisruptionBudget for its primary and one for its replicas",
          "[cluster][pdb]") {
  // Given a settled 3-instance Cluster, we should keep <name>-primary (minAvailable 1) and
  // <name> (the replicas, minAvailable instances - 2), both children of the Cluster.
  World world(three_instances());
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  CHECK(world.names("PodDisruptionBudget") == Names{"db", "db-primary"});

  Json& primary = world.child("PodDisruptionBudget", "db-primary");
  CHECK(primary["apiVersion"] == "policy/v1");
  CHECK(primary["metadata"]["namespace"] == "shop");
  CHECK(primary["metadata"]["labels"] == Json{{"opctl.io/cluster", "db"}});
  CHECK(primary["spec"] ==
        Json{{"minAvailable", 1},
             {"selector", {{"matchLabels", {{"opctl.io/cluster", "db"}, {"opctl.io/role", "primary"}}}}}});

  Json& replicas = world.child("PodDisruptionBudget", "db");
  CHECK(replicas["spec"] ==
        Json{{"minAvailable", 1},
             {"selector", {{"matchLabels", {{"opctl.io/cluster", "db"}, {"opctl.io/role", "replica"}}}}}});
}

TEST_CASE("the replicas' budget follows spec.instances and is dropped below 3 instances", "[cluster][pdb]") {
  // Given a Cluster scaled from 3 to 5 and down to 2, we should allow one replica
  // down at a time (minAvailable = instances - 2) and drop the replicas' budget when
  // it would be 0 (CloudNativePG does not create it below 3 instances).
  World world(three_instances());
  world.settle();
  world.set_spec("instances", 5);
  world.settle();
  REQUIRE(world.names("Pod").size() == 5);
  CHECK(world.child("PodDisruptionBudget", "db")["spec"]["minAvailable"] == 3);

  world.set_spec("instances", 2);
  world.settle();
  REQUIRE(world.names("Pod").size() == 2);
  CHECK(world.names("PodDisruptionBudget") == Names{"db-primary"});
}

TEST_CASE("a 1-instance Cluster keeps only the primary's budget", "[cluster][pdb]") {
  // Given one instance, we should protect it from eviction as CloudNativePG does (a drain waits).
  World world({{"instances", 1},
               {"imageName", "ghcr.io/cloudnative-pg/postgresql:16.4"},
               {"storage", {{"size", "1Gi"}}}});
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  CHECK(world.names("PodDisruptionBudget") == Names{"db-primary"});
}

TEST_CASE("the Cluster lists PodDisruptionBudgets among its child kinds", "[cluster][pdb]") {
  // Given the runner lists and prunes only child_kinds(), we should name policy/v1 PodDisruptionBudget there.
  auto reconciler = opctl::kinds::cluster::make_cluster_reconciler();
  bool found = false;
  for (const auto& gvk : reconciler->child_kinds())
    found = found || (gvk.group == "policy" && gvk.version == "v1" && gvk.kind == "PodDisruptionBudget");
  CHECK(found);
}
