#include <catch2/catch.hpp>

#include "diff/ignore_rules.hpp"

using namespace opctl::diff;
using opctl::model::Json;
using opctl::model::ObjectKey;

namespace {

const ObjectKey k_web{"apps", "Deployment", "shop", "web"};

Json deployment(int replicas) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "shop"}}},
          {"spec", {{"replicas", replicas}, {"template", {{"spec", {{"containers", Json::array()}}}}}}}};
}

// Live, with the replicas owned by `owner` (opctl applied them, or an
// autoscaler took them through the scale subresource).
Json live_deployment(int replicas, const std::string& owner) {
  Json live = deployment(replicas);
  Json spec_fields = {{"f:template", Json::object()}};
  Json fields = {{"f:spec", spec_fields}};
  if (owner == "opctl") fields["f:spec"]["f:replicas"] = Json::object();
  Json entries = Json::array(
      {{{"manager", "opctl"}, {"operation", "Apply"}, {"fieldsType", "FieldsV1"}, {"fieldsV1", fields}}});
  if (owner != "opctl")
    entries.push_back({{"manager", owner},
                       {"operation", "Update"},
                       {"subresource", "scale"},
                       {"fieldsType", "FieldsV1"},
                       {"fieldsV1", {{"f:spec", {{"f:replicas", Json::object()}}}}}});
  live["metadata"]["managedFields"] = entries;
  return live;
}

}  // namespace

TEST_CASE("rules match by group, kind, namespace and name with wildcards", "[diff][ignore]") {
  CHECK(IgnoreRule{"apps", "Deployment", "", "", {}}.matches(k_web));
  CHECK(IgnoreRule{"*", "*", "shop", "web", {}}.matches(k_web));
  CHECK_FALSE(IgnoreRule{"", "Deployment", "", "", {}}.matches(k_web));  // empty group is the core group
  CHECK_FALSE(IgnoreRule{"apps", "Deployment", "other", "", {}}.matches(k_web));
  CHECK_FALSE(IgnoreRule{"apps", "StatefulSet", "", "", {}}.matches(k_web));
}

TEST_CASE("an ignored field another manager owns is left to it", "[diff][ignore]") {
  std::vector<IgnoreRule> rules{{"apps", "Deployment", "", "", {"/spec/replicas"}}};
  Json desired = deployment(2);
  keep_live_values_of_ignored_fields(desired, live_deployment(7, "autoscaler"), k_web, rules, "opctl");
  CHECK_FALSE(desired["spec"].contains("replicas"));
  CHECK(desired["spec"]["template"] == deployment(2)["spec"]["template"]);
}

TEST_CASE("an ignored field opctl owns keeps its live value instead of being deleted", "[diff][ignore]") {
  std::vector<IgnoreRule> rules{{"apps", "Deployment", "", "", {"/spec/replicas"}}};
  Json desired = deployment(2);
  keep_live_values_of_ignored_fields(desired, live_deployment(7, "opctl"), k_web, rules, "opctl");
  CHECK(desired["spec"]["replicas"] == 7);
}

TEST_CASE("an ignored field absent live is left out of the apply", "[diff][ignore]") {
  std::vector<IgnoreRule> rules{{"apps", "Deployment", "", "", {"/spec/replicas"}}};
  Json desired = deployment(2);
  Json live = live_deployment(2, "opctl");
  live["spec"].erase("replicas");
  keep_live_values_of_ignored_fields(desired, live, k_web, rules, "opctl");
  CHECK_FALSE(desired["spec"].contains("replicas"));
}

TEST_CASE("live values of ignored fields are copied where desired lacks their parent", "[diff][ignore]") {
  std::vector<IgnoreRule> rules{{"apps", "*", "", "", {"/metadata/annotations/scaler~1last"}}};
  Json live = live_deployment(2, "opctl");
  live["metadata"]["annotations"] = {{"scaler/last", "2026-01-01"}};
  live["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"] = {
      {"f:annotations", {{"f:scaler/last", Json::object()}}}};
  Json desired = deployment(2);
  keep_live_values_of_ignored_fields(desired, live, k_web, rules, "opctl");
  CHECK(desired["metadata"]["annotations"]["scaler/last"] == "2026-01-01");
}

TEST_CASE("ignored fields inside lists are never spliced by index", "[diff][ignore]") {
  std::vector<IgnoreRule> rules{{"apps", "Deployment", "", "", {"/spec/template/spec/containers/0/image"}}};
  Json live = live_deployment(2, "opctl");
  live["spec"]["template"]["spec"]["containers"] = Json::array({{{"name", "a"}, {"image", "a:2"}}});
  Json desired = deployment(2);
  desired["spec"]["template"]["spec"]["containers"] = Json::array({{{"name", "a"}, {"image", "a:1"}}});
  Json before = desired;
  keep_live_values_of_ignored_fields(desired, live, k_web, rules, "opctl");
  CHECK(desired == before);
}

TEST_CASE("rules for other objects and malformed pointers change nothing", "[diff][ignore]") {
  std::vector<IgnoreRule> rules{{"apps", "Deployment", "", "api", {"/spec/replicas"}},
                                {"apps", "Deployment", "", "web", {"spec/replicas", "/spec/replicas/~9"}}};
  Json desired = deployment(2);
  keep_live_values_of_ignored_fields(desired, live_deployment(7, "opctl"), k_web, rules, "opctl");
  CHECK(desired == deployment(2));
}
