// wait_until_healthy against a scripted API server and a fake clock: how it
// ends (healthy, failed, timed out, stopped) and what each poll asks for.
#include <algorithm>
#include <catch2/catch.hpp>

#include "../kube/fake_transport.hpp"
#include "../support/fake_clock.hpp"
#include "apply/health_wait.hpp"

using opctl::apply::HealthState;
using opctl::apply::wait_until_healthy;
using opctl::apply::WaitOptions;
using opctl::apply::WaitResult;
using opctl::apply::WaitTarget;
using opctl::kube::ResourceInfo;
using opctl::kube::testing::FakeTransport;
using opctl::model::Json;
using opctl::testing::FakeClock;
using namespace std::chrono_literals;

namespace {

const std::string k_claims = "/api/v1/namespaces/shop/persistentvolumeclaims";
const std::string k_claims_list = k_claims + "?limit=500";

ResourceInfo resource(const std::string& group, const std::string& kind, const std::string& plural) {
  ResourceInfo info;
  info.gvk = {group, "v1", kind};
  info.resource = plural;
  info.namespaced = true;
  return info;
}

WaitTarget claim_target(const std::string& name, const std::string& namespace_name = "shop") {
  return {{"", "PersistentVolumeClaim", namespace_name, name},
          resource("", "PersistentVolumeClaim", "persistentvolumeclaims")};
}

Json claim_body(const std::string& name, const std::string& phase) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}, {"namespace", "shop"}}},
          {"status", {{"phase", phase}}}};
}

// A list as the server sends it: items without apiVersion and kind.
std::string list_of(const std::vector<Json>& objects) {
  Json items = Json::array();
  for (Json object : objects) {
    object.erase("apiVersion");
    object.erase("kind");
    items.push_back(std::move(object));
  }
  return Json{{"kind", "List"}, {"metadata", Json::object()}, {"items", items}}.dump();
}

struct Fixture {
  FakeTransport server;
  opctl::kube::RestMapper mapper{server};
  opctl::kube::ApiClient client{server, mapper};
  FakeClock clock;
  int polls = 0;

  WaitOptions options(std::chrono::milliseconds timeout = 60s) {
    WaitOptions wait;
    wait.clock = &clock;
    wait.deadline = clock.steady_now() + timeout;
    wait.on_poll = [this](const auto&) { ++polls; };
    return wait;
  }

  // The server's answer to `path` from now on.
  void now_answers(const std::string& path, long status, const std::string& body) {
    server.responses[path].clear();
    server.answer(path, status, body);
  }

  std::vector<std::string> paths_from(std::size_t first) const {
    std::vector<std::string> paths;
    for (std::size_t i = first; i < server.requests.size(); ++i)
      paths.push_back(server.requests[i].path);
    return paths;
  }
};

}  // namespace

TEST_CASE("a wait ends healthy on the poll that sees every object healthy, having slept between polls",
          "[health_wait]") {
  // Given two claims that bind after the wait has slept twice, we should poll three times with one LIST each.
  Fixture f;
  f.server.answer(k_claims_list, 200, list_of({claim_body("a", "Pending"), claim_body("b", "Pending")}));
  f.clock.on_sleep = [&] {
    if (f.clock.slept() == 1000ms)
      f.now_answers(k_claims_list, 200, list_of({claim_body("a", "Bound"), claim_body("b", "Bound")}));
  };
  auto result = wait_until_healthy(f.client, {claim_target("a"), claim_target("b")}, f.options());
  CHECK(result.outcome == WaitResult::Outcome::healthy);
  CHECK(result.unhealthy.empty());
  CHECK(f.polls == 3);
  CHECK(f.clock.slept() == 1000ms);
  CHECK(f.server.requests.size() == 3);
  CHECK(f.server.count(k_claims_list) == 3);
}

TEST_CASE("a poll sends one LIST per resource and namespace of several objects and one GET for a single one",
          "[health_wait]") {
  // Given three claims in shop, one in web and one Service in shop, we should send 1 LIST + 2 GETs.
  Fixture f;
  f.server.answer(k_claims_list, 200,
                  list_of({claim_body("a", "Bound"), claim_body("b", "Bound"), claim_body("c", "Bound")}));
  Json in_web = claim_body("d", "Bound");
  in_web["metadata"]["namespace"] = "web";
  f.server.answer("/api/v1/namespaces/web/persistentvolumeclaims/d", 200, in_web.dump());
  f.server.answer("/api/v1/namespaces/shop/services/front", 200,
                  Json{{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", {{"name", "front"}}}}.dump());
  WaitTarget service{{"", "Service", "shop", "front"}, resource("", "Service", "services")};
  auto result = wait_until_healthy(
      f.client, {claim_target("a"), claim_target("b"), claim_target("c"), claim_target("d", "web"), service},
      f.options());
  CHECK(result.outcome == WaitResult::Outcome::healthy);
  auto paths = f.paths_from(0);
  std::sort(paths.begin(), paths.end());
  CHECK(paths == std::vector<std::string>{"/api/v1/namespaces/shop/persistentvolumeclaims?limit=500",
                                          "/api/v1/namespaces/shop/services/front",
                                          "/api/v1/namespaces/web/persistentvolumeclaims/d"});
}

TEST_CASE("a group down to one awaited object reads it by GET on the next poll", "[health_wait]") {
  // Given claims a (Bound) and b (Pending, Bound after one sleep), we should LIST once, then GET b.
  Fixture f;
  f.server.answer(k_claims_list, 200, list_of({claim_body("a", "Bound"), claim_body("b", "Pending")}));
  f.server.answer(k_claims + "/b", 200, claim_body("b", "Bound").dump());
  auto result = wait_until_healthy(f.client, {claim_target("a"), claim_target("b")}, f.options());
  CHECK(result.outcome == WaitResult::Outcome::healthy);
  CHECK(f.paths_from(0) == std::vector<std::string>{k_claims_list, k_claims + "/b"});
}

TEST_CASE("a forbidden LIST falls back to GETs, on this poll and the next ones", "[health_wait]") {
  // Given RBAC that grants get but not list, we should still wait, by GET, and not ask for the LIST again.
  Fixture f;
  f.server.answer(k_claims_list, 403,
                  R"({"kind":"Status","code":403,"reason":"Forbidden","message":"cannot list"})");
  for (const std::string name : {"a", "b"}) {
    f.server.answer(k_claims + "/" + name, 200, claim_body(name, "Pending").dump());
    f.server.answer(k_claims + "/" + name, 200, claim_body(name, "Bound").dump());
  }
  auto result = wait_until_healthy(f.client, {claim_target("a"), claim_target("b")}, f.options());
  CHECK(result.outcome == WaitResult::Outcome::healthy);
  CHECK(f.paths_from(0) == std::vector<std::string>{k_claims_list, k_claims + "/a", k_claims + "/b",
                                                    k_claims + "/a", k_claims + "/b"});
}

TEST_CASE("a LIST that brings mostly other objects switches its group to GETs", "[health_wait]") {
  // Given two awaited claims among twelve in the namespace, we should GET the two from the second poll on.
  Fixture f;
  std::vector<Json> listed = {claim_body("a", "Pending"), claim_body("b", "Pending")};
  for (int i = 0; i < 10; ++i)
    listed.push_back(claim_body("other-" + std::to_string(i), "Bound"));
  f.server.answer(k_claims_list, 200, list_of(listed));
  f.server.answer(k_claims + "/a", 200, claim_body("a", "Bound").dump());
  f.server.answer(k_claims + "/b", 200, claim_body("b", "Bound").dump());
  auto result = wait_until_healthy(f.client, {claim_target("a"), claim_target("b")}, f.options());
  CHECK(result.outcome == WaitResult::Outcome::healthy);
  CHECK(f.paths_from(0) == std::vector<std::string>{k_claims_list, k_claims + "/a", k_claims + "/b"});
}

TEST_CASE("an object missing from the LIST is progressing with the server's not-found words",
          "[health_wait]") {
  // Given claim b not (yet) in the cluster next to a pending claim a, we should report b as a GET's 404
  // would.
  Fixture f;
  f.server.answer(k_claims_list, 200, list_of({claim_body("a", "Pending")}));
  auto result = wait_until_healthy(f.client, {claim_target("a"), claim_target("b")}, f.options(1s));
  CHECK(result.outcome == WaitResult::Outcome::timed_out);
  REQUIRE(result.unhealthy.size() == 2);
  CHECK(result.unhealthy[1].first.name == "b");
  CHECK(result.unhealthy[1].second.state == HealthState::progressing);
  CHECK(result.unhealthy[1].second.message == R"(persistentvolumeclaims "b" not found)");
  CHECK(f.server.count(k_claims_list) == 2);
}

TEST_CASE("a LIST that fails otherwise leaves its objects progressing with the error, and lists again",
          "[health_wait]") {
  Fixture f;
  f.server.answer(k_claims_list, 500,
                  R"({"kind":"Status","code":500,"reason":"InternalError","message":"etcd leader changed"})");
  f.server.answer(k_claims_list, 200, list_of({claim_body("a", "Bound"), claim_body("b", "Bound")}));
  std::vector<std::string> first_messages;
  auto options = f.options();
  options.on_poll = [&](const auto& unhealthy) {
    if (first_messages.empty())
      for (const auto& [key, health] : unhealthy)
        first_messages.push_back(health.message);
  };
  auto result = wait_until_healthy(f.client, {claim_target("a"), claim_target("b")}, options);
  CHECK(result.outcome == WaitResult::Outcome::healthy);
  REQUIRE(first_messages.size() == 2);
  CHECK_THAT(first_messages[0], Catch::Contains("etcd leader changed"));
  CHECK(f.server.count(k_claims_list) == 2);
}

TEST_CASE("a failed object ends the wait at once, without sleeping (fail fast)", "[health_wait]") {
  // Given a claim that lost its volume next to one still pending, we should stop on the first poll.
  Fixture f;
  f.server.answer(k_claims_list, 200, list_of({claim_body("a", "Lost"), claim_body("b", "Pending")}));
  auto result = wait_until_healthy(f.client, {claim_target("a"), claim_target("b")}, f.options());
  CHECK(result.outcome == WaitResult::Outcome::failed);
  REQUIRE(result.unhealthy.size() == 2);
  CHECK(result.unhealthy[0].second.state == HealthState::failed);
  CHECK(result.unhealthy[0].second.message == "the claim lost its volume");
  CHECK(result.unhealthy[1].second.state == HealthState::progressing);
  CHECK(f.clock.slept() == 0ms);
}

TEST_CASE("a wait that runs into its deadline times out, having polled until the next poll would be late",
          "[health_wait]") {
  // Given a 2 s deadline and 500 ms between polls, we should poll at 0, 0.5, 1 and 1.5 s and then give up.
  Fixture f;
  f.server.answer(k_claims + "/a", 200, claim_body("a", "Pending").dump());
  auto result = wait_until_healthy(f.client, {claim_target("a")}, f.options(2s));
  CHECK(result.outcome == WaitResult::Outcome::timed_out);
  CHECK(f.polls == 4);
  CHECK(f.clock.slept() == 1500ms);
  REQUIRE(result.unhealthy.size() == 1);
  CHECK(result.unhealthy[0].second.message == "phase Pending");
}

TEST_CASE("a wait asked to stop ends as stopped after the poll in progress", "[health_wait]") {
  // Given a stop request (SIGTERM) during the second poll, we should end there with what is still unhealthy.
  Fixture f;
  f.server.answer(k_claims + "/a", 200, claim_body("a", "Pending").dump());
  auto options = f.options();
  options.stop_requested = [&] { return f.polls == 2; };
  auto result = wait_until_healthy(f.client, {claim_target("a")}, options);
  CHECK(result.outcome == WaitResult::Outcome::stopped);
  CHECK(f.polls == 2);
  CHECK(f.clock.slept() == 500ms);
  CHECK(result.unhealthy.size() == 1);
}
