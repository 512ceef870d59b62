// The pass's executor against an in-memory apiserver and a fake clock: the
// order of writes, what a failure or an interruption stops, prune with uid
// preconditions, dry runs, and waits that take no real time.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>

#include "apply/apply_pass.hpp"
#include "support/fake_apiserver.hpp"
#include "support/fake_clock.hpp"

using opctl::apply::Action;
using opctl::apply::PassOptions;
using opctl::apply::PassReport;
using opctl::apply::PassResult;
using opctl::model::Json;
using opctl::model::Object;
using opctl::testing::FakeApiServer;
using opctl::testing::FakeClock;

namespace {

Object config_map(const std::string& name, const std::string& wave = "") {
  Json body = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", name}, {"namespace", "shop"}}},
               {"data", {{"key", name}}}};
  if (!wave.empty()) body["metadata"]["annotations"]["opctl.io/wave"] = wave;
  return Object(body);
}

Object named(const std::string& api_version, const std::string& kind, const std::string& name,
             const std::string& namespace_name = "") {
  Json body = {{"apiVersion", api_version}, {"kind", kind}, {"metadata", {{"name", name}}}};
  if (!namespace_name.empty()) body["metadata"]["namespace"] = namespace_name;
  return Object(body);
}

struct ExecutorFixture {
  FakeApiServer server;
  opctl::kube::RestMapper mapper{server};
  opctl::kube::ApiClient client{server, mapper};
  FakeClock clock;
  PassOptions options;

  ExecutorFixture() {
    options.applyset = {"opctl-shop", "opctl-system"};
    options.tooling = "opctl/test";
    options.clock = &clock;
  }

  PassReport run(std::vector<Object> objects) {
    return opctl::apply::run_apply_pass(client, std::move(objects), options);
  }

  Action action_of(const PassReport& report, const std::string& name) const {
    for (const auto& outcome : report.outcomes)
      if (outcome.key.name == name) return outcome.action;
    FAIL("no outcome for " << name);
    return Action::failed;
  }
};

std::vector<std::string> object_writes(const FakeApiServer& server) {
  std::vector<std::string> writes;
  for (const auto& write : server.writes())
    if (write.find("/events") == std::string::npos) writes.push_back(write);
  return writes;
}

}  // namespace

TEST_CASE("a first pass records the inventory, then applies in order; a second pass writes no object",
          "[pass_executor]") {
  ExecutorFixture f;
  std::vector<Object> set = {config_map("late", "1"), named("apps/v1", "Deployment", "web", "shop"),
                             config_map("settings"), named("v1", "Namespace", "shop")};
  auto first = f.run(set);
  REQUIRE(first.result == PassResult::succeeded);
  CHECK(first.count(Action::created) == 4);
  CHECK(object_writes(f.server) == std::vector<std::string>{
                                       "PATCH /api/v1/namespaces/opctl-system/secrets/opctl-shop",
                                       "PATCH /api/v1/namespaces/shop",
                                       "PATCH /api/v1/namespaces/shop/configmaps/settings",
                                       "PATCH /apis/apps/v1/namespaces/shop/deployments/web",
                                       "PATCH /api/v1/namespaces/shop/configmaps/late",
                                       "PATCH /api/v1/namespaces/opctl-system/secrets/opctl-shop",
                                   });
  // Every member carries the set's label, and the parent lists their kinds.
  auto stored = f.server.get("", "configmaps", "shop", "settings");
  REQUIRE(stored);
  CHECK((*stored)["metadata"]["labels"].contains("applyset.kubernetes.io/part-of"));
  auto parent = f.server.get("", "secrets", "opctl-system", "opctl-shop");
  REQUIRE(parent);
  CHECK_THAT((*parent)["metadata"]["annotations"].dump(),
             Catch::Contains("ConfigMap") && Catch::Contains("Deployment.apps"));

  f.server.requests.clear();
  auto second = f.run(set);
  CHECK(second.result == PassResult::succeeded);
  CHECK(second.count(Action::unchanged) == 4);
  CHECK(object_writes(f.server) == std::vector<std::string>{
                                       "PATCH /api/v1/namespaces/opctl-system/secrets/opctl-shop",
                                       "PATCH /api/v1/namespaces/opctl-system/secrets/opctl-shop",
                                   });
}

TEST_CASE("a failed object fails the pass but not its wave; later waves are skipped", "[pass_executor]") {
  ExecutorFixture f;
  f.server.answer("PATCH /api/v1/namespaces/shop/configmaps/bad", 422,
                  R"({"kind":"Status","code":422,"reason":"Invalid","message":"data.key: Invalid value"})");
  auto report = f.run({config_map("bad"), config_map("good"), config_map("later", "1")});
  CHECK(report.result == PassResult::failed);
  CHECK(report.message == "an object in wave 0 failed");
  CHECK(f.action_of(report, "bad") == Action::failed);
  CHECK(f.action_of(report, "good") == Action::created);
  CHECK(f.action_of(report, "later") == Action::skipped);
  CHECK_FALSE(f.server.get("", "configmaps", "shop", "later"));
  // The run record says what happened.
  auto parent = f.server.get("", "secrets", "opctl-system", "opctl-shop");
  REQUIRE(parent);
  CHECK_THAT((*parent)["metadata"]["annotations"]["opctl.io/last-run"].get<std::string>(),
             Catch::Contains("\"result\":\"failed\""));
}

TEST_CASE("the custom kinds still run after an object failed, and the pass stays failed", "[pass_executor]") {
  // Given a failed object in wave 0, we should still hand the report to the custom kinds (they reconcile what
  // exists) before the run is recorded, and keep the failure as the pass's result.
  ExecutorFixture f;
  f.server.answer("PATCH /api/v1/namespaces/shop/configmaps/bad", 422,
                  R"({"kind":"Status","code":422,"reason":"Invalid","message":"data.key: Invalid value"})");
  bool ran = false;
  f.options.run_custom_kinds = [&ran](PassReport& report) {
    ran = true;
    CHECK(report.result == PassResult::failed);
  };
  auto report = f.run({config_map("bad"), config_map("later", "1")});
  CHECK(ran);
  CHECK(report.result == PassResult::failed);
  CHECK(report.message == "an object in wave 0 failed");
}

TEST_CASE("an interrupted pass does not run the custom kinds", "[pass_executor]") {
  ExecutorFixture f;
  f.options.stop_requested = [&f] { return f.server.get("", "configmaps", "shop", "first").has_value(); };
  bool ran = false;
  f.options.run_custom_kinds = [&ran](PassReport&) { ran = true; };
  auto report = f.run({config_map("first"), config_map("second", "1")});
  CHECK(report.result == PassResult::interrupted);
  CHECK_FALSE(ran);
}

TEST_CASE("an interrupted pass finishes the batch in flight and sends nothing after", "[pass_executor]") {
  ExecutorFixture f;
  f.options.stop_requested = [&f] { return f.server.get("", "configmaps", "shop", "first").has_value(); };
  auto report = f.run({config_map("first"), config_map("second", "1")});
  CHECK(report.result == PassResult::interrupted);
  CHECK(f.action_of(report, "first") == Action::created);
  CHECK(f.action_of(report, "second") == Action::skipped);
  CHECK_FALSE(f.server.get("", "configmaps", "shop", "second"));
}

TEST_CASE("a dry run reports the plan and writes nothing", "[pass_executor]") {
  ExecutorFixture f;
  f.run({config_map("kept"), config_map("changed"), config_map("gone")});
  f.server.requests.clear();
  Object changed = config_map("changed");
  changed.mutable_body()["data"]["key"] = "new";
  f.options.dry_run = true;
  f.options.prune = true;
  auto report = f.run({config_map("kept"), changed, config_map("new")});
  CHECK(f.server.writes().empty());
  CHECK(report.dry_run);
  CHECK(f.action_of(report, "kept") == Action::unchanged);
  CHECK(f.action_of(report, "changed") == Action::planned_update);
  CHECK(f.action_of(report, "new") == Action::planned_create);
  CHECK(f.action_of(report, "gone") == Action::planned_prune);
}

TEST_CASE("prune deletes what left the set with its uid as precondition and keeps prune: disabled",
          "[pass_executor]") {
  ExecutorFixture f;
  Object pinned = config_map("pinned");
  pinned.set_annotation("opctl.io/prune", "disabled");
  f.run({config_map("stays"), config_map("goes"), pinned});
  f.server.requests.clear();
  f.options.prune = true;
  auto report = f.run({config_map("stays")});
  CHECK(report.result == PassResult::succeeded);
  CHECK(f.action_of(report, "goes") == Action::pruned);
  CHECK(f.action_of(report, "pinned") == Action::kept);
  CHECK_FALSE(f.server.get("", "configmaps", "shop", "goes"));
  CHECK(f.server.get("", "configmaps", "shop", "pinned"));
  auto deletes = std::count_if(f.server.requests.begin(), f.server.requests.end(), [](const auto& request) {
    return request.method == "DELETE" && request.body.find("\"uid\":\"uid-") != std::string::npos;
  });
  CHECK(deletes == 1);
}

TEST_CASE("after the waves, the pass says when the prune and then the custom kinds begin",
          "[pass_executor]") {
  // Given two objects that left the set, we should hear that a prune of two begins, and then that the custom
  // kinds run, so a progress line does not keep the last wave's words.
  ExecutorFixture f;
  f.run({config_map("stays"), config_map("goes"), config_map("also-goes")});
  std::vector<std::string> stages;
  f.options.prune = true;
  f.options.events.on_wave_start = [&stages](long wave, std::size_t) {
    stages.push_back(fmt::format("wave {}", wave));
  };
  f.options.events.on_prune_start = [&stages](std::size_t candidates) {
    stages.push_back(fmt::format("prune {}", candidates));
  };
  f.options.events.on_custom_kinds_start = [&stages] { stages.push_back("custom kinds"); };
  f.options.run_custom_kinds = [&stages](PassReport&) { stages.push_back("custom kinds ran"); };
  f.run({config_map("stays")});
  CHECK(stages == std::vector<std::string>{"wave 0", "prune 2", "custom kinds", "custom kinds ran"});
}

TEST_CASE("a prune whose delete meets another object under the same name deletes nothing",
          "[pass_executor]") {
  ExecutorFixture f;
  f.run({config_map("stays"), config_map("goes")});
  // Someone deletes and re-creates it between the LIST and the DELETE: the
  // precondition fails, the pass says so and the new object lives.
  f.server.answer("DELETE /api/v1/namespaces/shop/configmaps/goes", 409,
                  R"({"kind":"Status","code":409,"reason":"Conflict","message":"Precondition failed: UID"})");
  f.options.prune = true;
  auto report = f.run({config_map("stays")});
  CHECK(report.result == PassResult::failed);
  CHECK(report.message == "some objects could not be pruned");
  CHECK(f.action_of(report, "goes") == Action::failed);
}

TEST_CASE("a CRD that never becomes Established fails after its timeout, on the clock, not in real time",
          "[pass_executor]") {
  ExecutorFixture f;
  f.server.establish_crds = false;
  f.options.crd_established_timeout = std::chrono::seconds(60);
  auto started = std::chrono::steady_clock::now();
  auto report = f.run({named("apiextensions.k8s.io/v1", "CustomResourceDefinition", "gadgets.example.com")});
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  CHECK(f.clock.slept() >= std::chrono::seconds(60));
  CHECK(report.result == PassResult::failed);
  REQUIRE(report.outcomes.size() == 1);
  CHECK(report.outcomes[0].action == Action::failed);
  CHECK(report.outcomes[0].message == "CustomResourceDefinition did not become Established in time");
}

TEST_CASE("a CRD that becomes Established while the pass waits lets the pass go on", "[pass_executor]") {
  ExecutorFixture f;
  f.server.establish_crds = false;
  int sleeps = 0;
  f.clock.on_sleep = [&] {
    if (++sleeps != 3) return;
    Json crd = *f.server.get("apiextensions.k8s.io", "customresourcedefinitions", "", "gadgets.example.com");
    crd["status"] = {{"conditions", Json::array({{{"type", "Established"}, {"status", "True"}}})}};
    f.server.store(crd);
  };
  auto report = f.run({named("apiextensions.k8s.io/v1", "CustomResourceDefinition", "gadgets.example.com"),
                       config_map("after")});
  CHECK(report.result == PassResult::succeeded);
  CHECK(sleeps == 3);
  CHECK(f.action_of(report, "after") == Action::created);
}

TEST_CASE("--timeout 0 does not wait for health but still waits for a new CRD to be Established",
          "[pass_executor]") {
  // Given a pass with timeout 0 and a CRD that is Established after a few polls, we should wait for it
  // (its custom resources need it) within the CRD's own limit and go on to the next object.
  ExecutorFixture f;
  f.server.establish_crds = false;
  f.options.timeout = std::chrono::milliseconds(0);
  int sleeps = 0;
  f.clock.on_sleep = [&] {
    if (++sleeps != 3) return;
    Json crd = *f.server.get("apiextensions.k8s.io", "customresourcedefinitions", "", "gadgets.example.com");
    crd["status"] = {{"conditions", Json::array({{{"type", "Established"}, {"status", "True"}}})}};
    f.server.store(crd);
  };
  auto report = f.run({named("apiextensions.k8s.io/v1", "CustomResourceDefinition", "gadgets.example.com"),
                       config_map("after")});
  CHECK(report.result == PassResult::succeeded);
  CHECK(sleeps == 3);
  CHECK(f.action_of(report, "after") == Action::created);
}
