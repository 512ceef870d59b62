// Live state read through the kube layer from an in-memory apiserver: which
// objects are kept, and how much of each.
#include <catch2/catch.hpp>

#include "apply/diff_pass.hpp"
#include "apply/live_state.hpp"
#include "diff/field_ownership.hpp"
#include "support/fake_apiserver.hpp"

using opctl::apply::LiveStateOptions;
using opctl::apply::read_live_state;
using opctl::model::Json;
using opctl::model::Object;
using opctl::testing::FakeApiServer;

namespace {

Json desired_web(int replicas = 2) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "shop"}}},
          {"spec", {{"replicas", replicas}}}};
}

// As the server holds web after opctl applied desired_web(): a default,
// status, and another manager's entry.
Json live_web() {
  Json live = desired_web();
  live["spec"]["revisionHistoryLimit"] = 10;
  live["status"] = {{"replicas", 2}};
  live["metadata"]["managedFields"] = Json::parse(R"([
    {"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
    {"manager":"kube-controller-manager","operation":"Update","subresource":"status","fieldsType":"FieldsV1",
     "fieldsV1":{"f:status":{}}}])");
  return live;
}

struct Fixture {
  FakeApiServer server;
  opctl::kube::RestMapper mapper{server};
  opctl::kube::ApiClient client{server, mapper};

  Fixture() {
    server.store(live_web());
    Json other = live_web();
    other["metadata"]["name"] = "not-desired";
    server.store(other);
  }
};

const opctl::model::ObjectKey k_web{"apps", "Deployment", "shop", "web"};

}  // namespace

TEST_CASE("given a LIST, live state keeps only the desired objects, trimmed to what the pass reads",
          "[live_state]") {
  Fixture f;
  auto state = read_live_state(f.client, {Object(desired_web())});
  REQUIRE(state.objects.size() == 1);
  const Json& web = state.objects.at(k_web);
  CHECK(web["spec"] == Json{{"replicas", 2}});
  CHECK_FALSE(web.contains("status"));
  CHECK(web["metadata"]["managedFields"].size() == 1);
  CHECK_FALSE(web["metadata"].value("uid", "").empty());
  CHECK_FALSE(web["metadata"].value("resourceVersion", "").empty());
  CHECK(opctl::diff::apply_is_noop(desired_web(), web, "opctl"));
  CHECK_FALSE(opctl::diff::apply_is_noop(desired_web(3), web, "opctl"));
}

TEST_CASE("an object keep_whole asks for is kept whole but for other managers' entries", "[live_state]") {
  Fixture f;
  LiveStateOptions options;
  options.keep_whole = [](const Object&, const Json& live) { return live["metadata"]["name"] == "web"; };
  auto state = read_live_state(f.client, {Object(desired_web())}, options);
  const Json& web = state.objects.at(k_web);
  CHECK(web["spec"]["revisionHistoryLimit"] == 10);
  CHECK(web["status"] == Json{{"replicas", 2}});
  CHECK(web["metadata"]["managedFields"].size() == 1);
}

TEST_CASE("a diff keeps whole exactly the objects the fast path cannot decide", "[live_state]") {
  Fixture f;
  opctl::apply::DiffPassOptions diff;
  auto unchanged =
      read_live_state(f.client, {Object(desired_web())}, opctl::apply::live_state_for_diff(diff));
  CHECK_FALSE(unchanged.objects.at(k_web).contains("status"));
  auto changed = read_live_state(f.client, {Object(desired_web(3))}, opctl::apply::live_state_for_diff(diff));
  CHECK(changed.objects.at(k_web).contains("status"));
}

TEST_CASE("a CRD keeps its status: the pass waits for Established from it", "[live_state]") {
  Fixture f;
  Json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "widgets.example.com"}}},
              {"spec", {{"group", "example.com"}}},
              {"status", {{"conditions", {{{"type", "Established"}, {"status", "True"}}}}}}};
  f.server.store(crd, "opctl");
  Json desired = crd;
  desired.erase("status");
  auto state = read_live_state(f.client, {Object(desired)});
  const Json& live =
      state.objects.at({"apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com"});
  CHECK(live["status"] == crd["status"]);
  CHECK(live["spec"] == crd["spec"]);
}

TEST_CASE("ignoreDifferences keeps the live values of the fields it names", "[live_state]") {
  Fixture f;
  LiveStateOptions options;
  options.ignore_rules = {{"apps", "Deployment", "", "", {"/spec/revisionHistoryLimit"}}};
  auto state = read_live_state(f.client, {Object(desired_web())}, options);
  CHECK(state.objects.at(k_web)["spec"] == Json{{"replicas", 2}, {"revisionHistoryLimit", 10}});
}
