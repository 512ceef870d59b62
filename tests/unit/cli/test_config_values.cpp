// What opctl.yaml decides about the set, as reconcile, diff and status take it.
#include <catch2/catch.hpp>

#include "config/run_config.hpp"
#include "config_values.hpp"

using namespace opctl;

TEST_CASE("the ApplySet parent is opctl-<name> in the config's namespace", "[config_values]") {
  // Given a named config, we should find its parent where every command (and opctl install's RBAC) looks.
  config::RunConfig config;
  config.name = "shop";
  config.namespace_name = "ops";
  plan::ApplySetParent parent = cli::applyset_parent_of(config);
  CHECK(parent.name == config::set_object_name("shop"));
  CHECK(parent.name == "opctl-shop");
  CHECK(parent.namespace_name == "ops");
}

TEST_CASE("ignoreDifferences become ignore rules with every field kept", "[config_values]") {
  // Given an ignoreDifferences entry, we should keep its group, kind, namespace, name and pointers.
  config::RunConfig config;
  config.ignore_differences.push_back({"apps", "Deployment", "shop", "web", {"/spec/replicas"}});
  config.ignore_differences.push_back({"*", "ConfigMap", "", "", {"/data/a", "/data/b"}});
  auto rules = cli::ignore_rules_of(config);
  REQUIRE(rules.size() == 2);
  CHECK(rules[0].group == "apps");
  CHECK(rules[0].kind == "Deployment");
  CHECK(rules[0].namespace_name == "shop");
  CHECK(rules[0].name == "web");
  CHECK(rules[0].json_pointers == std::vector<std::string>{"/spec/replicas"});
  CHECK(rules[1].group == "*");
  CHECK(rules[1].json_pointers.size() == 2);
}
