// The pass as data: make_pass_plan decides every step from the desired set
// and live state alone, so each decision is checked here without a server.
#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "plan/pass_plan.hpp"

using opctl::model::Json;
using opctl::model::Object;
using opctl::plan::LiveObjects;
using opctl::plan::make_pass_plan;
using opctl::plan::PassPlan;
using opctl::plan::PlanOptions;
using opctl::plan::StepAction;

namespace {

const std::string k_manager = "opctl";

Json config_map(const std::string& name, const std::string& value, const std::string& wave = "") {
  Json body = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", name}, {"namespace", "shop"}}},
               {"data", {{"key", value}}}};
  if (!wave.empty()) body["metadata"]["annotations"]["opctl.io/wave"] = wave;
  return body;
}

// `desired` as the server holds it after opctl applied it: the manager owns exactly its fields.
Json applied(Json desired) {
  Json fields = {{"f:data", {{"f:key", Json::object()}}}};
  if (desired["metadata"].contains("annotations")) {
    for (const auto& [name, value] : desired["metadata"]["annotations"].items())
      fields["f:metadata"]["f:annotations"]["f:" + name] = Json::object();
  }
  desired["metadata"]["uid"] = "uid-" + desired["metadata"].value("name", "");
  desired["metadata"]["resourceVersion"] = "7";
  desired["metadata"]["managedFields"] = Json::array(
      {{{"manager", k_manager}, {"operation", "Apply"}, {"fieldsType", "FieldsV1"}, {"fieldsV1", fields}}});
  return desired;
}

PlanOptions options(bool prune = false, bool wait = false) {
  PlanOptions result;
  result.field_manager = k_manager;
  result.prune = prune;
  result.wait = wait;
  return result;
}

std::vector<std::string> step_names(const PassPlan& plan, StepAction action) {
  std::vector<std::string> names;
  for (const auto& step : plan.steps)
    if (step.action == action) names.push_back(step.key.name);
  return names;
}

}  // namespace

TEST_CASE("a plan creates what is absent, updates what differs and leaves the rest alone", "[pass_plan]") {
  LiveObjects live;
  live.objects[Object(config_map("same", "1")).key()] = applied(config_map("same", "1"));
  live.objects[Object(config_map("moved", "1")).key()] = applied(config_map("moved", "1"));
  std::vector<Object> desired = {Object(config_map("new", "1")), Object(config_map("same", "1")),
                                 Object(config_map("moved", "2"))};
  auto plan = make_pass_plan(desired, live, {}, options());
  CHECK(step_names(plan, StepAction::create) == std::vector<std::string>{"new"});
  CHECK(step_names(plan, StepAction::unchanged) == std::vector<std::string>{"same"});
  CHECK(step_names(plan, StepAction::update) == std::vector<std::string>{"moved"});
  for (const auto& step : plan.steps) {
    CHECK(step.applies() == (step.action != StepAction::unchanged));
    CHECK(plan.objects[step.object].key() == step.key);
  }
  for (const auto& step : plan.steps)
    if (step.key.name == "new") CHECK(step.reason == "not in the cluster");
}

TEST_CASE("a new commit alone changes nothing: opctl.io/source keeps its live value", "[pass_plan]") {
  Json before = config_map("web", "1");
  before["metadata"]["annotations"]["opctl.io/source"] = "repo@aaaa";
  Json now = config_map("web", "1");
  now["metadata"]["annotations"]["opctl.io/source"] = "repo@bbbb";
  LiveObjects live{{{Object(before).key(), applied(before)}}, {}};
  auto plan = make_pass_plan({Object(now)}, live, {}, options());
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].action == StepAction::unchanged);

  // When the object changes anyway, it is sent with the new commit.
  Json changed = config_map("web", "2");
  changed["metadata"]["annotations"]["opctl.io/source"] = "repo@bbbb";
  plan = make_pass_plan({Object(changed)}, live, {}, options());
  REQUIRE(plan.steps[0].action == StepAction::update);
  CHECK(plan.objects[0].annotation("opctl.io/source") == "repo@bbbb");
}

TEST_CASE("ignored fields keep their live values, so an autoscaler's change is no update", "[pass_plan]") {
  Json live_object = applied(config_map("web", "1"));
  live_object["data"]["key"] = "set-by-someone-else";
  LiveObjects live{{{Object(live_object).key(), live_object}}, {}};
  PlanOptions with_rule = options();
  with_rule.ignore_rules.push_back({"", "ConfigMap", "", "", {"/data/key"}});
  auto plan = make_pass_plan({Object(config_map("web", "1"))}, live, {}, with_rule);
  CHECK(plan.steps[0].action == StepAction::unchanged);
  CHECK(plan.objects[0].body()["data"]["key"] == "set-by-someone-else");
  CHECK(make_pass_plan({Object(config_map("web", "1"))}, live, {}, options()).steps[0].action ==
        StepAction::update);
}

TEST_CASE("settles holds exactly when the pass would leave the object unchanged", "[pass_plan]") {
  Json before = config_map("web", "1");
  before["metadata"]["annotations"]["opctl.io/source"] = "repo@aaaa";
  Json now = config_map("web", "1");
  now["metadata"]["annotations"]["opctl.io/source"] = "repo@bbbb";
  Json live = applied(before);
  CHECK(opctl::plan::settles(Object(now), live, options()));  // a new commit alone: unchanged
  Json changed = config_map("web", "2");
  changed["metadata"]["annotations"]["opctl.io/source"] = "repo@bbbb";
  CHECK_FALSE(opctl::plan::settles(Object(changed), live, options()));
  // An ignore rule's fields are sent with their live values: never settled, even when unchanged.
  PlanOptions with_rule = options();
  with_rule.ignore_rules.push_back({"", "ConfigMap", "", "web", {"/data/other"}});
  CHECK_FALSE(opctl::plan::settles(Object(now), live, with_rule));
  with_rule.ignore_rules.back().name = "api";
  CHECK(opctl::plan::settles(Object(now), live, with_rule));
}

TEST_CASE("a settled object is planned as unchanged, sent as decide() would have made it", "[pass_plan]") {
  Json before = config_map("web", "1");
  before["metadata"]["annotations"]["opctl.io/source"] = "repo@aaaa";
  Json now = config_map("web", "1");
  now["metadata"]["annotations"]["opctl.io/source"] = "repo@bbbb";
  LiveObjects whole{{{Object(before).key(), applied(before)}}, {}};
  LiveObjects settled;
  settled.settled[Object(before).key()] = opctl::plan::settled_object(applied(before));
  CHECK(settled.settled.begin()->second.source == "repo@aaaa");
  CHECK(settled.find(Object(before).key()) == nullptr);
  auto from_whole = make_pass_plan({Object(now)}, whole, {}, options());
  auto from_settled = make_pass_plan({Object(now)}, settled, {}, options());
  REQUIRE(from_settled.steps.size() == 1);
  CHECK(from_settled.steps[0].action == StepAction::unchanged);
  CHECK(from_settled.steps[0].reason == from_whole.steps[0].reason);
  CHECK(from_settled.objects[0].body() == from_whole.objects[0].body());
  CHECK(from_settled.objects[0].annotation("opctl.io/source") == "repo@aaaa");

  // Live without the annotation: the desired one stays as it is.
  Json plain = applied(config_map("web", "1"));
  CHECK_FALSE(opctl::plan::settled_object(plain).source.has_value());
  settled.settled[Object(before).key()] = opctl::plan::settled_object(plain);
  CHECK(make_pass_plan({Object(now)}, settled, {}, options()).objects[0].annotation("opctl.io/source") ==
        "repo@bbbb");
}

TEST_CASE("a settled object cut to its identity is planned as it was whole: same step, wave and source",
          "[pass_plan]") {
  Json desired = config_map("web", "1", "2");
  desired["metadata"]["labels"]["app"] = "web";
  desired["metadata"]["annotations"]["opctl.io/source"] = "repo@bbbb";
  desired["metadata"]["finalizers"] = Json::array({"example.com/keep"});
  Object cut(desired, {"web.yaml", 3}, {{"/data/key", 7}, {"/metadata/name", 5}});
  CHECK(cut.field_line_bytes() > 0);
  opctl::plan::keep_settled_identity(cut);

  CHECK(cut.body() == Json{{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata",
                            {{"name", "web"},
                             {"namespace", "shop"},
                             {"labels", {{"app", "web"}}},
                             {"annotations", {{"opctl.io/wave", "2"}, {"opctl.io/source", "repo@bbbb"}}}}}});
  CHECK(cut.field_line_bytes() == Object().field_line_bytes());  // freed
  CHECK(cut.line_of("/data/key") == 3);                          // the document's line
  CHECK(cut.location().file == "web.yaml");

  Json live = applied(config_map("web", "1", "2"));
  live["metadata"]["annotations"]["opctl.io/source"] = "repo@aaaa";
  LiveObjects settled;
  settled.settled[cut.key()] = opctl::plan::settled_object(live);
  auto from_cut = make_pass_plan({cut}, settled, {}, options());
  auto from_whole = make_pass_plan({Object(desired)}, settled, {}, options());
  REQUIRE(from_cut.steps.size() == 1);
  CHECK(from_cut.steps[0].action == StepAction::unchanged);
  CHECK(from_cut.steps[0].wave == 2);
  CHECK(from_cut.steps[0].wave == from_whole.steps[0].wave);
  CHECK(from_cut.steps[0].rank == from_whole.steps[0].rank);
  CHECK(from_cut.objects[0].annotation("opctl.io/source") == "repo@aaaa");
}

TEST_CASE("waves and kind ranks make the batches; CRD batches wait; --wait lists the health waits",
          "[pass_plan]") {
  Json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "gadgets.example.com"}}}};
  Json deployment = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "web"}, {"namespace", "shop"}}}};
  std::vector<Object> desired = {Object(config_map("late", "1", "2")), Object(deployment), Object(crd),
                                 Object(config_map("early", "1", "-1"))};
  PlanOptions waiting = options(false, true);
  waiting.skip_health.push_back({"apps", "Deployment"});
  auto plan = make_pass_plan(desired, {}, {}, waiting);
  REQUIRE(plan.waves.size() == 3);
  CHECK(plan.waves[0].wave == -1);
  CHECK(plan.waves[1].wave == 0);
  CHECK(plan.waves[2].wave == 2);
  const auto& middle = plan.waves[1];
  REQUIRE(middle.batches.size() == 2);
  CHECK(plan.steps[middle.batches[0].steps[0]].key.kind == "CustomResourceDefinition");
  CHECK(middle.batches[0].waits_for_crds);
  CHECK_FALSE(middle.batches[1].waits_for_crds);
  // The Deployment's kind skips health: only the CRD is waited for in wave 0.
  REQUIRE(middle.health_waits.size() == 1);
  CHECK(plan.steps[middle.health_waits[0]].key.kind == "CustomResourceDefinition");
  CHECK(make_pass_plan(desired, {}, {}, options()).waves[0].health_waits.empty());
}

TEST_CASE("a wave that is not an integer is refused with its file and line", "[pass_plan]") {
  CHECK_THROWS_AS(make_pass_plan({Object(config_map("bad", "1", "soon"))}, {}, {}, options()),
                  opctl::InvalidInputError);
}

TEST_CASE("prune: members no longer desired, in deletion order by rank; prune: disabled is kept",
          "[pass_plan]") {
  auto member = [](Json object) {
    object["metadata"]["labels"]["applyset.kubernetes.io/part-of"] = "applyset-x-v1";
    object["metadata"]["uid"] = "uid-" + object["metadata"].value("name", "");
    return object;
  };
  Json ns = member({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "old"}}}});
  Json web = member({{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "web"}, {"namespace", "old"}}}});
  Json gone = member(config_map("gone", "1"));
  Json pinned = member(config_map("pinned", "1"));
  pinned["metadata"]["annotations"]["opctl.io/prune"] = "disabled";
  Json kept = member(config_map("kept", "1"));
  std::vector<Json> members = {ns, gone, web, pinned, kept};

  auto plan = make_pass_plan({Object(config_map("kept", "1"))}, {}, members, options(true));
  CHECK(step_names(plan, StepAction::keep) == std::vector<std::string>{"pinned"});
  // Workloads before config before Namespaces, each rank its own batch.
  REQUIRE(plan.prune_batches.size() == 3);
  CHECK(plan.steps[plan.prune_batches[0][0]].key.name == "web");
  CHECK(plan.steps[plan.prune_batches[1][0]].key.name == "gone");
  CHECK(plan.steps[plan.prune_batches[2][0]].key.name == "old");
  CHECK(plan.steps[plan.prune_batches[1][0]].live["metadata"]["uid"] == "uid-gone");
  CHECK(plan.steps[plan.prune_batches[1][0]].reason == "no longer in the set");
  // Without prune, members are not even looked at.
  CHECK(make_pass_plan({Object(config_map("kept", "1"))}, {}, members, options()).prune_batches.empty());
}
