#include <algorithm>
#include <catch2/catch.hpp>

#include "kinds/cluster/cluster_reconciler.hpp"

using opctl::model::Json;

TEST_CASE("the CRD serves opctl.io/v1alpha1 Cluster with a status subresource and the spec's schema",
          "[cluster][crd]") {
  auto reconciler = opctl::kinds::cluster::make_cluster_reconciler();
  Json crd = reconciler->custom_resource_definition();
  CHECK(crd["metadata"]["name"] == "clusters.opctl.io");
  CHECK(crd["spec"]["group"] == "opctl.io");
  CHECK(crd["spec"]["names"]["kind"] == "Cluster");
  CHECK(crd["spec"]["scope"] == "Namespaced");
  Json& version = crd["spec"]["versions"][0];
  CHECK(version["name"] == "v1alpha1");
  CHECK(version["subresources"]["status"] == Json::object());
  Json& spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"];
  CHECK(spec["properties"]["instances"]["minimum"] == 1);
  CHECK(spec["properties"]["primaryUpdateMethod"]["enum"] == Json{"switchover", "restart"});
  CHECK(spec["required"] == Json{"storage"});
  CHECK(spec["properties"]["resources"]["x-kubernetes-preserve-unknown-fields"] == true);
  // Every status field the pass writes must be in the schema, or the API server prunes it.
  Json& status = version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"];
  for (const char* field :
       {"instances", "readyInstances", "currentPrimary", "targetPrimary", "phase", "conditions",
        "observedGeneration", "latestGeneratedNode", "pgDataImageInfo", "recovery", "majorUpgrade",
        "finalBackup", "restartingPrimary", "currentPrimaryFailingSinceTimestamp", "lastPromoteRequest",
        "instanceNames", "phaseReason"})
    CHECK(status.contains(field));
}

TEST_CASE("the kind lists its children and the kinds it needs", "[cluster][crd]") {
  auto reconciler = opctl::kinds::cluster::make_cluster_reconciler();
  CHECK(reconciler->kind() == opctl::model::GroupVersionKind{"opctl.io", "v1alpha1", "Cluster"});
  auto kinds = reconciler->child_kinds();
  for (const char* kind : {"Pod", "PersistentVolumeClaim", "Service", "Secret", "Job", "ServiceAccount",
                           "Role", "RoleBinding", "Lease"})
    CHECK(std::any_of(kinds.begin(), kinds.end(), [&](const auto& gvk) { return gvk.kind == kind; }));
}
