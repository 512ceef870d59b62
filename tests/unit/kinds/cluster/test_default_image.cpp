// A Cluster without spec.imageName: which image it runs (the site default,
// else the built-in name no public registry serves), the warning that says
// how to build and push one, and the status of an instance that cannot pull it.
#include <catch2/catch.hpp>

#include "cluster_world.hpp"
#include "kinds/backup/backup_job.hpp"
#include "kinds/cluster/cluster_crd.hpp"
#include "kinds/cluster/cluster_reconciler.hpp"
#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/kind_registry.hpp"
#include "model/yaml_document.hpp"

using namespace opctl::kinds::cluster;
using opctl::model::Json;

namespace {

constexpr const char* k_site_image = "registry.example/postgresql:15-0.1.0";

opctl::model::Object manifest(const std::string& spec_lines) {
  auto documents = opctl::model::parse_yaml_documents(
      "apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: db\n  namespace: shop\nspec:\n" +
          spec_lines,
      "db.yaml");
  REQUIRE(documents.size() == 1);
  return opctl::model::Object(documents.front().value, {"db.yaml", documents.front().line},
                              documents.front().field_lines);
}

std::vector<opctl::Problem> warnings(const std::string& site_default, const opctl::model::Object& object) {
  return make_cluster_reconciler(site_default)->check_in_set(object, {object}).warnings;
}

}  // namespace

TEST_CASE("a Cluster without imageName runs the site default, else the built-in name", "[cluster][image]") {
  auto bare = cluster_test::cluster_resource("db", {{"storage", {{"size", "1Gi"}}}});
  CHECK(parse_cluster_spec(bare).image_name == "ghcr.io/opctl/postgresql:15-0.1.0");
  CHECK(parse_cluster_spec(bare, k_site_image).image_name == k_site_image);
  CHECK(parse_cluster_spec(bare, k_site_image).major_version == 15);
  auto named = cluster_test::cluster_resource(
      "db", {{"imageName", "localhost/opctl-postgresql:17"}, {"storage", {{"size", "1Gi"}}}});
  CHECK(parse_cluster_spec(named, k_site_image).image_name == "localhost/opctl-postgresql:17");
}

TEST_CASE("the pass creates the first instance with the site default", "[cluster][image]") {
  cluster_test::World world(Json{{"storage", {{"size", "1Gi"}}}});
  world.reconciler = make_cluster_reconciler(k_site_image);
  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  CHECK(world.image("db-1") == k_site_image);
}

TEST_CASE("the CRD gives imageName no default, so the API server never writes one over the site's",
          "[cluster][image]") {
  Json crd = cluster_crd();
  const Json& image = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                         ["properties"]["imageName"];
  CHECK_FALSE(image.contains("default"));
  CHECK_THAT(image.value("description", ""), Catch::Contains("spec.clusterDefaults.imageName"));
}

TEST_CASE("without imageName or a site default, validation warns at the spec's line how to build and push",
          "[cluster][image]") {
  auto object = manifest("  instances: 1\n  storage:\n    size: 1Gi\n");
  auto found = warnings("", object);
  REQUIRE(found.size() == 1);
  CHECK(found[0].file == "db.yaml");
  CHECK(found[0].line == 6);
  CHECK(found[0].field == "spec.imageName");
  CHECK_THAT(found[0].message,
             Catch::Contains("ghcr.io/opctl/postgresql:15-0.1.0, which no public registry"));
  CHECK_THAT(found[0].message, Catch::Contains("docker build -f deploy/postgresql.Dockerfile"));
  CHECK_THAT(found[0].message, Catch::Contains("docker push"));
  CHECK_THAT(found[0].message, Catch::Contains("spec.clusterDefaults.imageName"));
  // Advice, not an error: the set stays valid.
  CHECK(make_cluster_reconciler()->validate(object).empty());

  CHECK(warnings(k_site_image, object).empty());
  CHECK(warnings("", manifest("  imageName: localhost/opctl-postgresql:15\n  storage:\n    size: 1Gi\n"))
            .empty());
}

TEST_CASE("the registry hands the site default to the Cluster kind's checks", "[cluster][image]") {
  auto object = manifest("  storage:\n    size: 1Gi\n");
  CHECK(opctl::kinds::make_registry({}).check({object}).warnings.size() == 1);
  CHECK(opctl::kinds::make_registry({}, {k_site_image}).check({object}).warnings.empty());
}

TEST_CASE("a site default without a major version tag is an error for the Clusters that would run it",
          "[cluster][image]") {
  auto problems = make_cluster_reconciler("registry.example/postgresql:latest")
                      ->validate(manifest("  storage:\n    size: 1Gi\n"));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "spec.imageName");
  CHECK_THAT(problems[0].message, Catch::Contains("registry.example/postgresql:latest"));
  CHECK(make_cluster_reconciler("registry.example/postgresql:latest")
            ->validate(manifest("  imageName: localhost/opctl-postgresql:15\n  storage:\n    size: 1Gi\n"))
            .empty());
}

TEST_CASE("an instance that cannot pull its image says how to build and push one in the conditions",
          "[cluster][image]") {
  cluster_test::World world(Json{{"storage", {{"size", "1Gi"}}}});
  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  world.pod("db-1")["status"] = {
      {"phase", "Pending"},
      {"containerStatuses",
       Json::array({{{"name", "postgres"},
                     {"ready", false},
                     {"state",
                      {{"waiting",
                        {{"reason", "ImagePullBackOff"},
                         {"message", "Back-off pulling image \"ghcr.io/opctl/postgresql:15-0.1.0\""}}}}}}})}};
  world.pass();
  std::string message = world.message("Ready");
  CHECK_THAT(message, Catch::Contains("db-1: ImagePullBackOff: Back-off pulling image"));
  CHECK_THAT(message, Catch::Contains("build deploy/postgresql.Dockerfile"));
  CHECK_THAT(world.status("phaseReason"), Catch::Contains("docker push"));
  // A pull can still succeed on the kubelet's next try: not Degraded, the pass does not fail.
  CHECK_FALSE(world.condition("Degraded"));

  world.pod("db-1").erase("status");
  world.pass();
  CHECK_THAT(world.message("Ready"), !Catch::Contains("postgresql.Dockerfile"));
}

TEST_CASE("a Backup of a Cluster without imageName runs the image its instances run", "[cluster][image]") {
  auto bare = cluster_test::cluster_resource("db", {{"storage", {{"size", "1Gi"}}}});
  CHECK(opctl::kinds::backup::cluster_image(&bare, k_site_image) == k_site_image);
  auto named = cluster_test::cluster_resource("db", {{"imageName", "localhost/opctl-postgresql:15"}});
  CHECK(opctl::kinds::backup::cluster_image(&named, k_site_image) == "localhost/opctl-postgresql:15");
}
