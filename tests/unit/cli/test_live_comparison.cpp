// opctl diff and opctl status compare the set with the cluster through one
// function, so an ignored field (an autoscaler's replicas) is drift to
// neither. The server is scripted: discovery, the LIST, the dry run.
#include <catch2/catch.hpp>

#include "../kube/fake_transport.hpp"
#include "config/run_config.hpp"
#include "live_comparison.hpp"
#include "plan/applyset.hpp"

using namespace opctl;
using kube::testing::FakeTransport;
using model::Json;

namespace {

const char* k_apps_discovery =
    R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{"name":"apps"},)"
    R"("versions":[{"version":"v1","resources":[{"resource":"deployments","responseKind":{"kind":"Deployment"},)"
    R"("scope":"Namespaced","verbs":["get","list","patch"]}]}]}]})";

Json deployment(int replicas) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "shop"}}},
          {"spec", {{"replicas", replicas}, {"template", {{"spec", {{"containers", Json::array()}}}}}}}};
}

// A cluster where an autoscaler set the Deployment's replicas to 5; the dry
// run of the set's manifest (2 replicas) would set them back.
struct ScaledCluster {
  FakeTransport server;
  kube::RestMapper mapper{server};
  kube::ApiClient client{server, mapper};

  ScaledCluster() {
    server.answer("/api", 200, R"({"kind":"APIGroupDiscoveryList","items":[]})");
    server.answer("/apis", 200, k_apps_discovery);
    server.answer(
        "/apis/apps/v1/namespaces/shop/deployments", 200,
        Json{{"kind", "DeploymentList"}, {"metadata", Json::object()}, {"items", {deployment(5)}}}.dump());
    server.answer("/apis/apps/v1/namespaces/shop/deployments/web", 200, deployment(2).dump());
  }
};

config::RunConfig shop_config() {
  config::RunConfig config;
  config.name = "shop";
  config.namespace_name = "ops";
  return config;
}

}  // namespace

TEST_CASE("a field opctl.yaml ignores is not a difference, though live and the dry run differ there",
          "[live_comparison]") {
  // Given replicas changed by hand and ignoreDifferences naming /spec/replicas, we should see the set in
  // sync.
  ScaledCluster cluster;
  config::RunConfig config = shop_config();
  config.ignore_differences.push_back({"apps", "Deployment", "", "", {"/spec/replicas"}});
  std::vector<model::Object> desired = {model::Object(deployment(2))};
  auto comparison = cli::compare_with_live(cluster.client, desired, config);
  REQUIRE(comparison.result.diffs.size() == 1);
  CHECK(comparison.result.diffs[0].change == diff::Change::unchanged);
  CHECK(comparison.options.compare.ignore_rules.size() == 1);  // what a prune preview compares with
  CHECK(comparison.live.find(desired[0].key()) != nullptr);    // status reads custom resources' Ready from it
}

TEST_CASE("without an ignore rule, replicas changed by hand are a difference", "[live_comparison]") {
  // Given the same cluster and no ignoreDifferences, we should report the Deployment as changed at
  // /spec/replicas.
  ScaledCluster cluster;
  std::vector<model::Object> desired = {model::Object(deployment(2))};
  auto comparison = cli::compare_with_live(cluster.client, desired, shop_config());
  REQUIRE(comparison.result.diffs.size() == 1);
  CHECK(comparison.result.diffs[0].change == diff::Change::changed);
  CHECK(comparison.result.diffs[0].changed_paths == std::vector<std::string>{"/spec/replicas"});
}

TEST_CASE("the desired objects are compared as members of the config's ApplySet", "[live_comparison]") {
  // Given a named set, we should label each object part of its ApplySet, as the pass applies it.
  ScaledCluster cluster;
  std::vector<model::Object> desired = {model::Object(deployment(2))};
  cli::compare_with_live(cluster.client, desired, shop_config());
  plan::ApplySetParent parent{config::set_object_name("shop"), "ops"};
  CHECK(desired[0].body()["metadata"]["labels"][plan::k_applyset_part_of_label] == parent.id());
}
