#include <catch2/catch.hpp>

#include "install/rbac_rules.hpp"
#include "kinds/kind_registry.hpp"
#include "model/error.hpp"

using opctl::install::compute_rbac;
using opctl::install::offline_lookup;
using opctl::install::PolicyRules;
using opctl::install::RbacInputs;
using opctl::install::RbacRules;
using opctl::model::Json;
using opctl::model::Object;

namespace {

Object make(const std::string& api_version, const std::string& kind, const std::string& name,
            const std::string& namespace_name = "", Json extra = Json::object()) {
  Json body = {{"apiVersion", api_version}, {"kind", kind}, {"metadata", {{"name", name}}}};
  if (!namespace_name.empty()) body["metadata"]["namespace"] = namespace_name;
  body.update(extra);
  return Object(body);
}

RbacRules rbac_of(const std::vector<Object>& desired, const opctl::kinds::KindRegistry* registry = nullptr) {
  // As opctl install does: the set's own CRDs, then those of opctl's kinds.
  std::vector<Json> crds = opctl::install::crds_in(desired);
  if (registry != nullptr)
    for (auto& crd : registry->custom_resource_definitions())
      crds.push_back(std::move(crd));
  RbacInputs inputs{offline_lookup(crds), registry, "shop", "opctl-system", true};
  return compute_rbac(desired, inputs);
}

const PolicyRules& role(const RbacRules& rbac, const std::string& namespace_name) {
  auto found = rbac.namespaced.find(namespace_name);
  REQUIRE(found != rbac.namespaced.end());
  return found->second;
}

}  // namespace

TEST_CASE("given namespaced objects we should grant their resources only in their namespace", "[install]") {
  auto rbac = rbac_of({make("apps/v1", "Deployment", "web", "shop"), make("v1", "ConfigMap", "web", "shop"),
                       make("v1", "Service", "api", "billing")});
  const auto& shop = role(rbac, "shop");
  for (const char* verb : {"get", "list", "create", "patch", "delete"}) {
    CHECK(shop.allows("apps", "deployments", verb));
    CHECK(shop.allows("", "configmaps", verb));
  }
  CHECK_FALSE(shop.allows("apps", "deployments", "watch"));  // nothing watches: a pass lists and polls
  CHECK_FALSE(shop.allows("", "services", "create"));
  CHECK_FALSE(shop.allows("", "secrets", "get"));
  CHECK(role(rbac, "billing").allows("", "services", "patch"));
  CHECK_FALSE(role(rbac, "billing").allows("apps", "deployments", "patch"));
  CHECK(rbac.cluster.empty());
}

TEST_CASE("given no object needs update we should never grant it", "[install]") {
  auto rbac = rbac_of({make("apps/v1", "Deployment", "web", "shop")});
  CHECK_FALSE(role(rbac, "shop").allows("apps", "deployments", "update"));
}

TEST_CASE("given --prune lists every kind of the set in every namespace we should grant list there",
          "[install]") {
  auto rbac =
      rbac_of({make("apps/v1", "Deployment", "web", "shop"), make("v1", "Service", "api", "billing")});
  CHECK(role(rbac, "billing").allows("apps", "deployments", "list"));
  CHECK_FALSE(role(rbac, "billing").allows("apps", "deployments", "delete"));
  CHECK(role(rbac, "opctl-system").allows("", "services", "list"));
}

TEST_CASE("given cluster-scoped objects we should limit all but create and list to their names",
          "[install]") {
  auto rbac = rbac_of({make("v1", "Namespace", "shop"), make("rbac.authorization.k8s.io/v1", "ClusterRole",
                                                             "reader", "", {{"rules", Json::array()}})});
  CHECK(rbac.cluster.allows_named("", "namespaces", "patch", "shop"));
  CHECK(rbac.cluster.allows_named("", "namespaces", "delete", "shop"));
  CHECK_FALSE(rbac.cluster.allows_named("", "namespaces", "delete", "kube-system"));
  CHECK(rbac.cluster.allows("", "namespaces", "create"));
  CHECK(rbac.cluster.allows("", "namespaces", "list"));
  CHECK_FALSE(rbac.cluster.allows("", "namespaces", "watch"));
  CHECK_FALSE(rbac.cluster.allows("", "namespaces", "delete"));
  CHECK(rbac.cluster.allows_named("rbac.authorization.k8s.io", "clusterroles", "patch", "reader"));
  auto rules = rbac.cluster.to_json();
  bool named = false;
  for (const auto& rule : rules)
    if (rule.contains("resourceNames") && rule["resources"] == Json::array({"namespaces"})) {
      named = true;
      CHECK(rule["resourceNames"] == Json::array({"shop"}));
      CHECK(rule["verbs"] == Json::array({"delete", "get", "patch"}));
    }
  CHECK(named);
}

TEST_CASE("given a CRD in the set we should know its custom resources' plural and scope", "[install]") {
  Json crd_extra = {{"spec",
                     {{"group", "example.com"},
                      {"scope", "Namespaced"},
                      {"names", {{"kind", "Widget"}, {"plural", "widgetz"}}},
                      {"versions", Json::array({{{"name", "v1"}}})}}}};
  auto rbac = rbac_of(
      {make("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgetz.example.com", "", crd_extra),
       make("example.com/v1", "Widget", "w", "shop")});
  CHECK(rbac.cluster.allows_named("apiextensions.k8s.io", "customresourcedefinitions", "get",
                                  "widgetz.example.com"));
  CHECK(role(rbac, "shop").allows("example.com", "widgetz", "patch"));
}

TEST_CASE("given a kind nobody defines we should report it as invalid input", "[install]") {
  CHECK_THROWS_AS(rbac_of({make("example.com/v1", "Gadget", "g", "shop")}), opctl::InvalidInputError);
}

TEST_CASE("given the config we should allow its Lease and ApplySet parent by name", "[install]") {
  auto rbac = rbac_of({make("v1", "ConfigMap", "c", "shop")});
  const auto& home = role(rbac, "opctl-system");
  CHECK(home.allows_named("coordination.k8s.io", "leases", "get", "opctl-shop"));
  CHECK(home.allows_named("coordination.k8s.io", "leases", "update", "opctl-shop"));
  CHECK_FALSE(home.allows_named("coordination.k8s.io", "leases", "update", "other"));
  CHECK(home.allows_named("", "secrets", "patch", "opctl-shop"));
  CHECK_FALSE(home.allows_named("", "secrets", "get", "db-superuser"));
  // create cannot be limited by name
  CHECK(home.allows("", "secrets", "create"));
  CHECK(home.allows("coordination.k8s.io", "leases", "create"));
  CHECK_FALSE(home.allows("", "secrets", "list"));
}

TEST_CASE("given a Role in the set we should hold its rules and bind it, as the API server demands",
          "[install]") {
  Json rule = {{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get"}}};
  auto rbac = rbac_of(
      {make("rbac.authorization.k8s.io/v1", "Role", "pod-reader", "shop", {{"rules", Json::array({rule})}}),
       make("rbac.authorization.k8s.io/v1", "RoleBinding", "pod-reader", "shop",
            {{"roleRef", {{"kind", "Role"}, {"name", "pod-reader"}}}})});
  auto rules = role(rbac, "shop").to_json();
  CHECK(std::find(rules.begin(), rules.end(), rule) != rules.end());
  // The binding is applied together with the role: without bind, the API server would have to read a role
  // that may not exist yet.
  CHECK(role(rbac, "shop").allows_named("rbac.authorization.k8s.io", "roles", "bind", "pod-reader"));
}

TEST_CASE("given a binding to a role the set does not define we should allow bind on that role only",
          "[install]") {
  auto rbac = rbac_of({make("rbac.authorization.k8s.io/v1", "RoleBinding", "viewers", "shop",
                            {{"roleRef", {{"kind", "ClusterRole"}, {"name", "view"}}}}),
                       make("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "admins", "",
                            {{"roleRef", {{"kind", "ClusterRole"}, {"name", "admin"}}}})});
  CHECK(role(rbac, "shop").allows_named("rbac.authorization.k8s.io", "clusterroles", "bind", "view"));
  CHECK_FALSE(role(rbac, "shop").allows_named("rbac.authorization.k8s.io", "clusterroles", "bind", "admin"));
  CHECK(rbac.cluster.allows_named("rbac.authorization.k8s.io", "clusterroles", "bind", "admin"));
}

TEST_CASE("given a Cluster we should allow its children and status in its namespace only", "[install]") {
  auto registry = opctl::kinds::builtin_registry();
  auto rbac = rbac_of(
      {make("opctl.io/v1alpha1", "Cluster", "db", "shop",
            {{"spec", {{"instances", 1}, {"imageName", "postgres:17"}, {"storage", {{"size", "1Gi"}}}}}})},
      &registry);
  const auto& shop = role(rbac, "shop");
  for (const auto& [group, resource] :
       std::vector<std::pair<std::string, std::string>>{{"", "pods"},
                                                        {"", "persistentvolumeclaims"},
                                                        {"", "services"},
                                                        {"", "secrets"},
                                                        {"", "serviceaccounts"},
                                                        {"rbac.authorization.k8s.io", "roles"},
                                                        {"rbac.authorization.k8s.io", "rolebindings"},
                                                        {"batch", "jobs"},
                                                        {"policy", "poddisruptionbudgets"},
                                                        {"opctl.io", "clusters"}})
    CHECK(shop.allows(group, resource, "patch"));
  // Its PodDisruptionBudgets are listed, applied and pruned (below 3 instances, the replicas' one goes).
  for (const char* verb : {"get", "list", "create", "patch", "delete"})
    CHECK(shop.allows("policy", "poddisruptionbudgets", verb));
  // The Events it records on the Cluster (a failed instance Pod deleted).
  CHECK(shop.allows("", "events", "create"));
  CHECK(shop.allows("opctl.io", "clusters/status", "patch"));
  // Its instances' Role and RoleBinding: the rules are already held, and the Role may be bound by name.
  // (one per instance: opctl holds every rule of each, so later instances' bindings need no `bind`; the
  // Lease's update is among them)
  CHECK(shop.allows_named("rbac.authorization.k8s.io", "roles", "bind", "db-1"));
  bool updates_the_lease = false;
  for (const auto& rule : shop.to_json())
    updates_the_lease =
        updates_the_lease || (rule.value("resources", Json::array()) == Json::array({"leases"}) &&
                              rule.value("resourceNames", Json::array()) == Json::array({"db-primary"}) &&
                              rule["verbs"].dump().find("update") != std::string::npos);
  CHECK(updates_the_lease);
  CHECK_FALSE(shop.allows("rbac.authorization.k8s.io", "roles", "bind"));
  for (const auto& rule : shop.to_json())
    CHECK_FALSE(rule.value("resourceNames", Json::array()) == Json::array({"db-app", "db-superuser"}));
  CHECK_FALSE(role(rbac, "opctl-system").allows("", "pods", "get"));
}

TEST_CASE("given a Backup we should allow its CronJob and Jobs and reading its Cluster", "[install]") {
  auto registry = opctl::kinds::builtin_registry();
  auto rbac =
      rbac_of({make("opctl.io/v1alpha1", "Backup", "nightly", "shop",
                    {{"spec", {{"cluster", "db"}, {"schedule", "0 2 * * *"}, {"target", {{"pvc", "b"}}}}}})},
              &registry);
  const auto& shop = role(rbac, "shop");
  CHECK(shop.allows("batch", "cronjobs", "create"));
  CHECK(shop.allows("batch", "jobs", "delete"));
  CHECK(shop.allows("opctl.io", "backups/status", "patch"));
  CHECK(shop.allows_named("opctl.io", "clusters", "get", "db"));
  CHECK_FALSE(shop.allows("opctl.io", "clusters", "get"));
  CHECK_FALSE(shop.allows("", "events", "create"));  // its reconciler records none
}
