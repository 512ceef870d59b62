#include <algorithm>
#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "plan/apply_order.hpp"

using opctl::model::Json;
using opctl::model::Object;

namespace {
Object make(const std::string& api_version, const std::string& kind, const std::string& name,
            const std::string& wave = "") {
  Json body = {{"apiVersion", api_version}, {"kind", kind}, {"metadata", {{"name", name}}}};
  if (!wave.empty()) body["metadata"]["annotations"]["opctl.io/wave"] = wave;
  return Object(body);
}

std::vector<std::string> ordered_names(const std::vector<Object>& objects) {
  std::vector<std::string> names;
  for (const auto& group : opctl::plan::order_for_apply(objects))
    for (auto index : group.members)
      names.push_back(objects[index].name());
  return names;
}
}  // namespace

TEST_CASE("within a wave, namespaces and CRDs come first and custom resources late", "[plan]") {
  std::vector<Object> objects = {
      make("apps/v1", "Deployment", "web"),
      make("opctl.io/v1alpha1", "Cluster", "db"),
      make("v1", "Service", "web-svc"),
      make("v1", "ConfigMap", "config"),
      make("v1", "Namespace", "shop"),
      make("apiextensions.k8s.io/v1", "CustomResourceDefinition", "crd"),
      make("rbac.authorization.k8s.io/v1", "ClusterRole", "role"),
      make("v1", "ServiceAccount", "sa"),
      make("networking.k8s.io/v1", "Ingress", "ingress"),
      make("v1", "PersistentVolumeClaim", "data"),
  };
  CHECK(ordered_names(objects) == std::vector<std::string>{"shop", "crd", "role", "sa", "config", "data",
                                                           "web-svc", "web", "db", "ingress"});
}

TEST_CASE("a PodDisruptionBudget comes before the workloads it protects", "[plan]") {
  // Given a budget and the Pods it selects, we should apply the budget first (as Helm does), so no
  // eviction finds the Pods unprotected; a Cluster's children are written in this order too.
  std::vector<Object> objects = {
      make("v1", "Pod", "db-1"),
      make("apps/v1", "Deployment", "web"),
      make("policy/v1", "PodDisruptionBudget", "db-primary"),
      make("v1", "ServiceAccount", "sa"),
  };
  auto names = ordered_names(objects);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 2) ==
        std::vector<std::string>{"sa", "db-primary"});
}

TEST_CASE("roles come before the bindings that name them", "[plan]") {
  std::vector<Object> objects = {
      make("rbac.authorization.k8s.io/v1", "RoleBinding", "rb"),
      make("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "crb"),
      make("rbac.authorization.k8s.io/v1", "Role", "r"),
      make("rbac.authorization.k8s.io/v1", "ClusterRole", "cr"),
  };
  auto names = ordered_names(objects);
  auto position = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) - names.begin();
  };
  CHECK(position("r") < position("rb"));
  CHECK(position("cr") < position("crb"));
  CHECK(position("cr") < position("rb"));
}

TEST_CASE("waves order before kinds, negative waves first", "[plan]") {
  std::vector<Object> objects = {make("v1", "Namespace", "late", "1"),
                                 make("apps/v1", "Deployment", "early", "-1"),
                                 make("v1", "ConfigMap", "middle")};
  CHECK(ordered_names(objects) == std::vector<std::string>{"early", "middle", "late"});
}

TEST_CASE("a wave that is not an integer is an input error", "[plan]") {
  CHECK_THROWS_AS(opctl::plan::order_for_apply({make("v1", "ConfigMap", "x", "soon")}),
                  opctl::InvalidInputError);
}
