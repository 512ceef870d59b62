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

struct LiveStateFixture {
  FakeApiServer server;
  opctl::kube::RestMapper mapper{server};
  opctl::kube::ApiClient client{server, mapper};

  LiveStateFixture() {
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
  LiveStateFixture f;
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
  LiveStateFixture f;
  LiveStateOptions options;
  options.keep_whole = [](const Object&, const Json& live) { return live["metadata"]["name"] == "web"; };
  auto state = read_live_state(f.client, {Object(desired_web())}, options);
  const Json& web = state.objects.at(k_web);
  CHECK(web["spec"]["revisionHistoryLimit"] == 10);
  CHECK(web["status"] == Json{{"replicas", 2}});
  CHECK(web["metadata"]["managedFields"].size() == 1);
}

TEST_CASE("a diff keeps whole exactly the objects the fast path cannot decide", "[live_state]") {
  LiveStateFixture f;
  opctl::apply::DiffPassOptions diff;
  auto unchanged =
      read_live_state(f.client, {Object(desired_web())}, opctl::apply::live_state_for_diff(diff));
  CHECK_FALSE(unchanged.objects.contains(k_web));  // settled: a pass leaves it unchanged too
  CHECK(unchanged.settled.contains(k_web));
  auto changed = read_live_state(f.client, {Object(desired_web(3))}, opctl::apply::live_state_for_diff(diff));
  CHECK(changed.objects.at(k_web).contains("status"));
}

TEST_CASE("an object settles says unchanged keeps only its key and source annotation", "[live_state]") {
  LiveStateFixture f;
  Json annotated = live_web();
  annotated["metadata"]["annotations"]["opctl.io/source"] = "repo@aaaa";
  f.server.store(annotated);
  LiveStateOptions options;
  options.settles = [](const Object&, const Json& live) { return live["spec"]["replicas"] == 2; };
  auto state = read_live_state(f.client, {Object(desired_web())}, options);
  CHECK(state.objects.empty());
  CHECK(state.find(k_web) == nullptr);
  REQUIRE(state.settled.size() == 1);
  CHECK(state.settled.at(k_web).source == "repo@aaaa");

  auto changed = read_live_state(f.client, {Object(desired_web(3))}, options);  // settles gets live
  CHECK(changed.objects.empty());
  options.settles = [](const Object& desired, const Json&) {
    return desired.body()["spec"]["replicas"] == 2;
  };
  changed = read_live_state(f.client, {Object(desired_web(3))}, options);
  CHECK(changed.settled.empty());
  CHECK(changed.objects.at(k_web)["spec"] == Json{{"replicas", 2}});  // trimmed as without settles
}

TEST_CASE("each object that settles is told once, by its index, while the LISTs are read", "[live_state]") {
  LiveStateFixture f;
  Json cart = live_web();
  cart["metadata"]["name"] = "cart";
  f.server.store(cart);
  Json desired_cart = desired_web(3);  // differs from live: not settled
  desired_cart["metadata"]["name"] = "cart";
  std::vector<Object> desired = {Object(desired_cart), Object(desired_web())};
  std::vector<std::size_t> told;
  LiveStateOptions options;
  options.settles = [](const Object& object, const Json& live) {
    return object.body()["spec"] == Json{{"replicas", 2}} && live["spec"]["replicas"] == 2;
  };
  options.on_settled = [&](std::size_t index) {
    told.push_back(index);
    opctl::plan::keep_settled_identity(desired[index]);
  };
  auto state = read_live_state(f.client, desired, options);
  CHECK(told == std::vector<std::size_t>{1});
  CHECK(state.settled.contains(k_web));
  CHECK(state.objects.contains({"apps", "Deployment", "shop", "cart"}));
  CHECK_FALSE(desired[1].body().contains("spec"));  // cut as it settled
  CHECK(desired[1].key() == k_web);
  CHECK(desired[0].body().contains("spec"));
}

TEST_CASE("a diff settles the objects a pass leaves unchanged and reports them unchanged", "[live_state]") {
  LiveStateFixture f;
  opctl::apply::DiffPassOptions diff;
  std::vector<Object> desired = {Object(desired_web())};
  auto state = read_live_state(f.client, desired, opctl::apply::live_state_for_diff(diff));
  CHECK(state.settled.contains(k_web));
  CHECK(state.objects.empty());
  auto result = opctl::apply::diff_against_live(f.client, desired, state, diff);
  REQUIRE(result.diffs.size() == 1);
  CHECK(result.diffs[0].change == opctl::diff::Change::unchanged);
  CHECK(result.fast_path == 1);
  CHECK(result.dry_runs == 0);

  // An ignoreDifferences rule's object is trimmed, not settled (a pass sends its live values).
  diff.compare.ignore_rules = {{"apps", "Deployment", "", "", {"/spec/revisionHistoryLimit"}}};
  state = read_live_state(f.client, desired, opctl::apply::live_state_for_diff(diff));
  CHECK(state.settled.empty());
  CHECK(state.objects.at(k_web)["spec"]["revisionHistoryLimit"] == 10);
}

TEST_CASE("a CRD keeps its status: the pass waits for Established from it", "[live_state]") {
  LiveStateFixture f;
  Json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "widgets.example.com"}}},
              {"spec", {{"group", "example.com"}}},
              {"status", {{"conditions", {{{"type", "Established"}, {"status", "True"}}}}}}};
  f.server.store(crd, "opctl");
  Json desired = crd;
  desired.erase("status");
  LiveStateOptions options;
  options.settles = [](const Object&, const Json&) { return true; };  // never asked for a CRD
  auto state = read_live_state(f.client, {Object(desired)}, options);
  CHECK(state.settled.empty());
  const Json& live =
      state.objects.at({"apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com"});
  CHECK(live["status"] == crd["status"]);
  CHECK(live["spec"] == crd["spec"]);
}

TEST_CASE("a custom resource settles as a built-in kind does; opctl status keeps its status",
          "[live_state]") {
  LiveStateFixture f;
  f.server.serve({"example.com", "v1", "Widget", "widgets", true});
  Json desired = {{"apiVersion", "example.com/v1"},
                  {"kind", "Widget"},
                  {"metadata", {{"name", "w"}, {"namespace", "shop"}}},
                  {"spec", {{"size", 1}}}};
  Json live = desired;
  live["status"] = {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}};
  f.server.store(live, "opctl");
  const opctl::model::ObjectKey key{"example.com", "Widget", "shop", "w"};
  LiveStateOptions options;
  options.settles = [](const Object&, const Json&) { return true; };

  auto pass = read_live_state(f.client, {Object(desired)}, options);
  CHECK(pass.settled.contains(key));
  CHECK_FALSE(pass.objects.contains(key));

  options.keep_custom_resource_status = true;  // as `opctl status` reads
  auto status = read_live_state(f.client, {Object(desired)}, options);
  CHECK(status.settled.empty());
  REQUIRE(status.objects.contains(key));
  CHECK(status.objects.at(key)["status"] == live["status"]);
}

TEST_CASE("ignoreDifferences keeps the live values of the fields it names", "[live_state]") {
  LiveStateFixture f;
  LiveStateOptions options;
  options.ignore_rules = {{"apps", "Deployment", "", "", {"/spec/revisionHistoryLimit"}}};
  auto state = read_live_state(f.client, {Object(desired_web())}, options);
  CHECK(state.objects.at(k_web)["spec"] == Json{{"replicas", 2}, {"revisionHistoryLimit", 10}});
}

namespace {

Json web_in(const std::string& namespace_name) {
  Json live = live_web();
  live["metadata"]["namespace"] = namespace_name;
  return live;
}

std::vector<Object> desired_in(const std::vector<std::string>& namespaces) {
  std::vector<Object> desired;
  for (const auto& namespace_name : namespaces) {
    Json object = desired_web();
    object["metadata"]["namespace"] = namespace_name;
    desired.emplace_back(object);
  }
  return desired;
}

std::vector<std::string> list_paths(const FakeApiServer& server) {
  std::vector<std::string> paths;
  for (const auto& request : server.requests)
    if (request.path.find("/deployments") != std::string::npos) paths.push_back(request.path);
  return paths;
}

// A cluster that holds nothing yet; each test stores or scripts its own.
struct EmptyCluster {
  FakeApiServer server;
  opctl::kube::RestMapper mapper{server};
  opctl::kube::ApiClient client{server, mapper};
};

// The LISTs that read Deployments in the set's namespaces, after one across namespaces.
const std::vector<std::string> k_across_then_per_namespace{
    "/apis/apps/v1/deployments?limit=500", "/apis/apps/v1/namespaces/cart/deployments?limit=500",
    "/apis/apps/v1/namespaces/shop/deployments?limit=500"};

Json list_page(const std::vector<Json>& items, const std::string& continue_token) {
  Json metadata = {{"resourceVersion", "1"}};
  if (!continue_token.empty()) metadata["continue"] = continue_token;
  return {{"kind", "DeploymentList"}, {"metadata", metadata}, {"items", items}};
}

}  // namespace

TEST_CASE("a kind the set holds in several namespaces is read with one LIST across all of them",
          "[live_state]") {
  // Given web in shop and in cart, and a Deployment outside the set in ops,
  EmptyCluster cluster;
  auto& server = cluster.server;
  auto& client = cluster.client;
  server.store(web_in("shop"));
  server.store(web_in("cart"));
  server.store(web_in("ops"));
  // when live state is read,
  auto state = read_live_state(client, desired_in({"shop", "cart"}));
  // then one LIST reads both, and only the set's objects are kept.
  CHECK(list_paths(server) == std::vector<std::string>{"/apis/apps/v1/deployments?limit=500"});
  CHECK(state.objects.size() == 2);
  CHECK(state.objects.contains({"apps", "Deployment", "cart", "web"}));
  CHECK(state.objects.contains(k_web));
}

TEST_CASE("a forbidden LIST across namespaces falls back to one LIST per namespace", "[live_state]") {
  EmptyCluster cluster;
  auto& server = cluster.server;
  auto& client = cluster.client;
  server.store(web_in("shop"));
  server.store(web_in("cart"));
  server.answer(
      "GET /apis/apps/v1/deployments", 403,
      R"({"kind":"Status","code":403,"reason":"Forbidden","message":"cannot list at the cluster scope"})");
  auto state = read_live_state(client, desired_in({"shop", "cart"}));
  CHECK(list_paths(server) == k_across_then_per_namespace);
  CHECK(state.objects.size() == 2);
}

TEST_CASE("a first page mostly of other objects sends the rest of the kind per namespace", "[live_state]") {
  // Given a cluster whose first page of Deployments holds one of the set's and nine others,
  EmptyCluster cluster;
  auto& server = cluster.server;
  auto& client = cluster.client;
  server.store(web_in("shop"));
  server.store(web_in("cart"));
  std::vector<Json> page{web_in("cart")};
  for (int i = 0; i < 9; ++i) {
    Json other = web_in("ops");
    other["metadata"]["name"] = "other-" + std::to_string(i);
    page.push_back(other);
  }
  server.answer("GET /apis/apps/v1/deployments", 200, list_page(page, "next").dump());
  // when live state is read,
  auto state = read_live_state(client, desired_in({"shop", "cart"}));
  // then the rest is not read across namespaces but in each of the set's.
  CHECK(list_paths(server) == k_across_then_per_namespace);
  CHECK(state.objects.size() == 2);
}

TEST_CASE("a first page mostly of the set's objects is read on to its last page", "[live_state]") {
  EmptyCluster cluster;
  auto& server = cluster.server;
  auto& client = cluster.client;
  server.answer("GET /apis/apps/v1/deployments", 200, list_page({web_in("cart")}, "next").dump());
  server.answer("GET /apis/apps/v1/deployments", 200, list_page({web_in("shop")}, "").dump());
  auto state = read_live_state(client, desired_in({"shop", "cart"}));
  CHECK(list_paths(server) == std::vector<std::string>{"/apis/apps/v1/deployments?limit=500",
                                                       "/apis/apps/v1/deployments?limit=500&continue=next"});
  REQUIRE(state.objects.size() == 2);
  CHECK(state.objects.at(k_web)["metadata"]["namespace"] == "shop");
}

TEST_CASE("Secrets are read per namespace even when the set holds them in several", "[live_state]") {
  EmptyCluster cluster;
  auto& server = cluster.server;
  auto& client = cluster.client;
  std::vector<Object> desired;
  for (const std::string namespace_name : {"shop", "cart"})
    desired.emplace_back(Json{{"apiVersion", "v1"},
                              {"kind", "Secret"},
                              {"metadata", {{"name", "token"}, {"namespace", namespace_name}}}});
  read_live_state(client, desired);
  std::vector<std::string> paths;
  for (const auto& request : server.requests)
    if (request.path.find("/secrets") != std::string::npos) paths.push_back(request.path);
  CHECK(paths == std::vector<std::string>{"/api/v1/namespaces/cart/secrets?limit=500",
                                          "/api/v1/namespaces/shop/secrets?limit=500"});
}

TEST_CASE("objects settled while their page is parsed count as the set's when a page is judged",
          "[live_state]") {
  // Given a first page holding only the set's objects, all of them unchanged,
  EmptyCluster cluster;
  auto& server = cluster.server;
  auto& client = cluster.client;
  server.answer("GET /apis/apps/v1/deployments", 200, list_page({web_in("cart")}, "next").dump());
  server.answer("GET /apis/apps/v1/deployments", 200, list_page({web_in("shop")}, "").dump());
  LiveStateOptions options;
  options.settles = [](const Object&, const Json&) { return true; };
  // when live state is read, the LIST across namespaces goes on to its last page
  auto state = read_live_state(client, desired_in({"shop", "cart"}), options);
  CHECK(list_paths(server) == std::vector<std::string>{"/apis/apps/v1/deployments?limit=500",
                                                       "/apis/apps/v1/deployments?limit=500&continue=next"});
  // and both objects are settled, none kept whole.
  CHECK(state.settled.size() == 2);
  CHECK(state.objects.empty());
}
