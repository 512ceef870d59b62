#include <catch2/catch.hpp>

#include "kinds/hook/hook_reconciler.hpp"
#include "kinds_fixtures.hpp"

using opctl::model::Json;
using namespace opctl::kinds;
using hook::HookError;
using hook::HookReconciler;
using hook::HookTransport;

namespace {

// Answers with a canned text (or fails) and remembers the request.
class CannedTransport : public HookTransport {
 public:
  CannedTransport(std::string answer, std::string* seen, bool fail = false)
      : answer_(std::move(answer)), seen_(seen), fail_(fail) {}
  std::string call(const std::string& request) override {
    *seen_ = request;
    if (fail_) throw HookError(answer_);
    return answer_;
  }

 private:
  std::string answer_;
  std::string* seen_;
  bool fail_;
};

opctl::config::HookKind hook_config(bool finalize = false) {
  opctl::config::HookKind config;
  config.api_version = "example.com/v1";
  config.kind = "Greeting";
  config.command = {"/bin/true"};
  config.children = {{"v1", "ConfigMap"}};
  config.finalize = finalize;
  return config;
}

Json parent() {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Greeting"},
          {"metadata", {{"name", "hello"}, {"namespace", "ns"}, {"uid", "u1"}, {"generation", 1}}},
          {"spec", {{"text", "hi"}}},
          {"status", {{"seen", 1}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

ReconcileResult run(const std::string& answer, std::string& seen, bool fail = false, bool finalizing = false,
                    bool finalize = false) {
  HookReconciler reconciler(hook_config(finalize), std::make_unique<CannedTransport>(answer, &seen, fail));
  test::FixedClock clock("2026-01-01T00:00:00Z");
  test::FixedRandom random;
  Context context{clock, random};
  Json child = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "hello-cm"}}}};
  Observed observed{parent(), {child}, {}, finalizing};
  return reconciler.reconcile(observed, context);
}

const Condition* find(const ReconcileResult& result, const std::string& type) {
  for (const auto& condition : result.conditions)
    if (condition.type == type) return &condition;
  return nullptr;
}

}  // namespace

TEST_CASE("given a parent and its children, the hook gets Metacontroller's request", "[kinds][hook]") {
  std::string seen;
  run(R"({"children": []})", seen);
  Json request = Json::parse(seen);
  CHECK(request["parent"]["metadata"]["name"] == "hello");
  CHECK(request["children"]["ConfigMap.v1"]["hello-cm"]["kind"] == "ConfigMap");
  CHECK(request["finalizing"] == false);
  CHECK(request["controller"]["kind"] == "Greeting");
}

TEST_CASE("given a good answer, children, status and resync come from it", "[kinds][hook]") {
  std::string seen;
  auto result = run(R"({"status": {"greeted": true}, "resyncAfterSeconds": 30,
      "children": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hello-cm"}, "data": {"a": "b"}}]})",
                    seen);
  REQUIRE(result.children.size() == 1);
  CHECK(result.children[0]["data"]["a"] == "b");
  CHECK(result.status == Json{{"greeted", true}});
  CHECK_FALSE(result.keep_unlisted);
  CHECK(result.requeue_after == std::chrono::seconds(30));
  CHECK(find(result, "Ready")->status);
  CHECK_FALSE(find(result, "Degraded")->status);
  CHECK(result.finalizers.empty());
}

TEST_CASE("given a failing or malformed hook, Degraded says why and nothing is deleted", "[kinds][hook]") {
  std::string seen;
  for (auto [answer, fail, message] :
       {std::tuple{std::string("the hook /bin/true exited with status 3: boom"), true,
                   std::string("status 3")},
        std::tuple{std::string("not json"), false, std::string("not a JSON object")},
        std::tuple{std::string(R"({"status": {}})"), false, std::string("no \"children\" list")},
        std::tuple{
            std::string(
                R"({"children": [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]})"),
            false, std::string("not among this kind's children")},
        std::tuple{
            std::string(R"({"children": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c",
                   "namespace": "other"}}]})"),
            false, std::string("children live in the parent's namespace ns")},
        std::tuple{std::string(R"({"children": [{"kind": "ConfigMap"}]})"), false,
                   std::string("lacks apiVersion")}}) {
    INFO(answer);
    auto result = run(answer, seen, fail);
    CHECK(result.keep_unlisted);
    CHECK(result.children.empty());
    REQUIRE(find(result, "Degraded") != nullptr);
    CHECK(find(result, "Degraded")->status);
    CHECK(find(result, "Degraded")->reason == "HookFailed");
    CHECK(find(result, "Degraded")->message.find(message) != std::string::npos);
    CHECK(find(result, "Ready")->status);  // the last known readiness stays
    CHECK(result.status == Json{{"seen", 1}});
  }
}

TEST_CASE("given finalize: true, the finalizer stays until the hook says finalized", "[kinds][hook]") {
  std::string seen;
  auto living = run(R"({"children": []})", seen, false, false, true);
  CHECK(living.finalizers == std::vector<std::string>{hook::k_hook_finalizer});
  auto pending = run(R"({"children": [], "finalized": false})", seen, false, true, true);
  CHECK(Json::parse(seen)["finalizing"] == true);
  CHECK(pending.finalizers == std::vector<std::string>{hook::k_hook_finalizer});
  CHECK(pending.requeue_after);
  auto done = run(R"({"children": [], "finalized": true})", seen, false, true, true);
  CHECK(done.finalizers.empty());
  auto failing = run("boom", seen, true, true, true);
  CHECK(failing.finalizers == std::vector<std::string>{hook::k_hook_finalizer});
}
