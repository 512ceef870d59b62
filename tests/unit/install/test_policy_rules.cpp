#include <catch2/catch.hpp>

#include "install/policy_rules.hpp"

using opctl::install::PolicyRules;
using opctl::model::Json;

TEST_CASE("given resources with the same verbs we should write one rule per group", "[install]") {
  PolicyRules rules;
  rules.allow("", "services", {"get", "patch"});
  rules.allow("", "configmaps", {"patch", "get"});
  rules.allow("apps", "deployments", {"get", "patch"});
  CHECK(rules.to_json() ==
        Json::parse(R"([{"apiGroups":[""],"resources":["configmaps","services"],"verbs":["get","patch"]},
                        {"apiGroups":["apps"],"resources":["deployments"],"verbs":["get","patch"]}])"));
}

TEST_CASE("given a named grant an open grant covers we should leave it out", "[install]") {
  PolicyRules rules;
  rules.allow("", "secrets", {"get", "create"});
  rules.allow_named("", "secrets", {"get", "patch"}, "opctl-default");
  CHECK(rules.to_json() ==
        Json::parse(R"([{"apiGroups":[""],"resources":["secrets"],"verbs":["create","get"]},
                        {"apiGroups":[""],"resources":["secrets"],"resourceNames":["opctl-default"],
                         "verbs":["patch"]}])"));
}

TEST_CASE("given a rule the grants already cover we should not repeat it", "[install]") {
  PolicyRules rules;
  rules.allow("", "pods", {"get", "list", "watch", "patch"});
  rules.allow("", "secrets", {"get", "watch"});
  rules.add_rule(Json::parse(R"({"apiGroups":[""],"resources":["pods"],"verbs":["get","patch"]})"));
  rules.add_rule(
      Json::parse(R"({"apiGroups":[""],"resources":["secrets"],"resourceNames":["a"],"verbs":["get"]})"));
  CHECK(rules.to_json().size() == 2);
  rules.add_rule(Json::parse(R"({"apiGroups":[""],"resources":["pods"],"verbs":["*"]})"));
  rules.add_rule(Json::parse(R"({"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]})"));
  CHECK(rules.to_json().size() == 4);
}
