#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;

namespace {

constexpr const char* k_16 = "ghcr.io/cloudnative-pg/postgresql:16.4";
constexpr const char* k_17 = "ghcr.io/cloudnative-pg/postgresql:17.2";

World healthy() {
  World world(three_instances());
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  REQUIRE(world.parent["status"]["pgDataImageInfo"] == Json{{"image", k_16}, {"majorVersion", 16}});
  return world;
}

std::string script(const Json& container) {
  return container["command"][2].get<std::string>();
}

}  // namespace

TEST_CASE("a major version change stops the instances and runs pg_upgrade on the primary's volume",
          "[cluster][upgrade]") {
  World world = healthy();
  world.set_spec("imageName", k_17);
  world.pass();
  CHECK(world.names("Pod").empty());
  CHECK(world.names("Job").empty());
  CHECK(world.phase() == "MajorUpgrade");
  CHECK(world.reason("Progressing") == "StoppingInstances");
  CHECK(world.parent["status"]["majorUpgrade"]["fromMajor"] == 16);
  CHECK(world.parent["status"]["majorUpgrade"]["toMajor"] == 17);
  CHECK(world.names("PersistentVolumeClaim") == Names{"db-1", "db-2", "db-3"});

  world.pass();
  REQUIRE(world.names("Job") == Names{"db-upgrade-17"});
  CHECK(world.names("Pod").empty());
  Json& job = world.child("Job", "db-upgrade-17");
  CHECK(job["metadata"]["labels"]["opctl.io/cluster-job"] == "major-upgrade");
  Json& pod = job["spec"]["template"]["spec"];
  CHECK(pod["volumes"][0]["persistentVolumeClaim"]["claimName"] == "db-1");
  CHECK(pod["initContainers"][0]["image"] == k_16);
  CHECK(pod["containers"][0]["image"] == k_17);
  CHECK(script(pod["containers"][0]).find("pg_upgrade") != std::string::npos);
  CHECK(script(pod["containers"][0]).find("--link") != std::string::npos);
  CHECK(pod["restartPolicy"] == "Never");

  world.pass();  // running: nothing starts, no failover
  CHECK(world.names("Pod").empty());
  CHECK(world.status("currentPrimary") == "db-1");

  world.complete_jobs();
  world.pass();
  // The succeeded Job stays (its log is what pg_upgrade did); nothing runs it again.
  CHECK(world.names("Job") == Names{"db-upgrade-17"});
  CHECK(world.names("Pod") == Names{"db-1"});
  CHECK(world.image("db-1") == k_17);
  CHECK(world.role("db-1") == "primary");
  // The replicas held data of the old major: gone, to be cloned anew from the upgraded primary.
  CHECK(world.names("PersistentVolumeClaim") == Names{"db-1"});
  CHECK(world.parent["status"]["pgDataImageInfo"] == Json{{"image", k_17}, {"majorVersion", 17}});
  CHECK_FALSE(world.parent["status"].contains("majorUpgrade"));

  world.settle();
  CHECK(world.names("Pod") == Names{"db-1", "db-4", "db-5"});
  for (const auto& name : world.names("Pod"))
    CHECK(world.image(name) == k_17);
  CHECK(world.phase() == "Healthy");
  CHECK(world.names("Job") == Names{"db-upgrade-17"});
}

TEST_CASE("a major version downgrade is refused and the instances keep running", "[cluster][upgrade]") {
  World world = healthy();
  auto before = world.children;
  world.set_spec("imageName", "ghcr.io/cloudnative-pg/postgresql:15.8");
  world.pass();
  CHECK(world.condition("Degraded"));
  CHECK(world.reason("Degraded") == "MajorDowngradeRefused");
  CHECK_FALSE(world.condition("Ready"));
  CHECK(world.phase() == "Degraded");
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  for (const auto& name : world.names("Pod"))
    CHECK(world.image(name) == k_16);
  CHECK(world.names("Job").empty());

  SECTION("a Pod recreated meanwhile keeps the image of its data") {
    world.remove("Pod", "db-2");
    world.pass();
    CHECK(world.image("db-2") == k_16);
  }
}

TEST_CASE("a failed upgrade leaves the instances stopped until the image goes back or the Job is retried",
          "[cluster][upgrade]") {
  World world = healthy();
  world.set_spec("imageName", k_17);
  world.pass();
  world.pass();
  world.complete_jobs("Failed");
  world.pass();
  CHECK(world.reason("Degraded") == "MajorUpgradeFailed");
  CHECK(world.status("phaseReason").find(k_16) != std::string::npos);
  CHECK(world.names("Pod").empty());
  CHECK(world.has("Job", "db-upgrade-17"));

  SECTION("back to the old image: the instances start again on it") {
    world.set_spec("imageName", k_16);
    world.pass();
    CHECK(world.names("Job").empty());
    CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
    CHECK(world.primary_pods() == "db-1");
    world.settle();
    CHECK(world.phase() == "Healthy");
    for (const auto& name : world.names("Pod"))
      CHECK(world.image(name) == k_16);
  }
  SECTION("deleting the Job retries it") {
    world.remove("Job", "db-upgrade-17");
    world.pass();
    CHECK(world.has("Job", "db-upgrade-17"));
    CHECK_FALSE(world.child("Job", "db-upgrade-17").contains("status"));
  }
}
