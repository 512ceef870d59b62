// `opctl status` renders the next pass's plan: counts, and each step that
// sends a request in the pass's order.
#include <catch2/catch.hpp>

#include "plan_render.hpp"

using opctl::model::Json;
using opctl::plan::PassPlan;
using opctl::plan::PlanStep;
using opctl::plan::StepAction;

namespace {

PlanStep step(StepAction action, const std::string& kind, const std::string& name, long wave,
              const std::string& reason) {
  PlanStep result;
  result.action = action;
  result.key = {"", kind, "shop", name};
  result.api_version = "v1";
  result.wave = wave;
  result.reason = reason;
  return result;
}

PassPlan sample_plan() {
  PassPlan plan;
  plan.steps = {step(StepAction::create, "ConfigMap", "new", 0, "not in the cluster"),
                step(StepAction::unchanged, "ConfigMap", "same", 0, ""),
                step(StepAction::update, "Service", "web", 1, "the live object differs"),
                step(StepAction::prune, "ConfigMap", "old", 0, "no longer in the set"),
                step(StepAction::keep, "Secret", "kept", 0, "opctl.io/prune: disabled")};
  return plan;
}

}  // namespace

TEST_CASE("the plan's JSON counts every step and lists the ones that send a request", "[plan_render]") {
  Json json = opctl::cli::render_plan_json(sample_plan());
  CHECK(json["create"] == 1);
  CHECK(json["update"] == 1);
  CHECK(json["unchanged"] == 1);
  CHECK(json["prune"] == 1);
  CHECK(json["keep"] == 1);
  REQUIRE(json["steps"].size() == 4);
  CHECK(json["steps"][0] == Json{{"action", "create"},
                                 {"object", "v1 ConfigMap shop/new"},
                                 {"wave", 0},
                                 {"reason", "not in the cluster"}});
  CHECK(json["steps"][1]["action"] == "update");
  CHECK(json["steps"][1]["wave"] == 1);
  CHECK(json["steps"][3]["reason"] == "opctl.io/prune: disabled");
}

TEST_CASE("the plan's text says when prune steps need --prune", "[plan_render]") {
  std::string without = opctl::cli::render_plan_text(sample_plan(), false);
  CHECK(without ==
        "Next pass: 1 to create, 1 to update, 1 unchanged, 1 to prune (with --prune), 1 kept\n"
        "  wave 0   create    v1 ConfigMap shop/new (not in the cluster)\n"
        "  wave 1   update    v1 Service shop/web (the live object differs)\n"
        "           prune     v1 ConfigMap shop/old (no longer in the set)\n"
        "           keep      v1 Secret shop/kept (opctl.io/prune: disabled)\n");
  std::string with = opctl::cli::render_plan_text(sample_plan(), true);
  CHECK_THAT(with,
             Catch::StartsWith("Next pass: 1 to create, 1 to update, 1 unchanged, 1 to prune, 1 kept\n"));
}

TEST_CASE("a set in sync has a one-line plan", "[plan_render]") {
  PassPlan plan;
  plan.steps = {step(StepAction::unchanged, "ConfigMap", "same", 0, "")};
  CHECK(opctl::cli::render_plan_text(plan, true) == "Next pass: 0 to create, 0 to update, 1 unchanged\n");
}
