#include <catch2/catch.hpp>

#include "diff/owned_values.hpp"

using opctl::diff::owned_part;
using opctl::diff::owned_values;
using opctl::model::Json;

namespace {
// A claim and a Pod as the server returns them after opctl-controller applied
// them: defaults filled in, a binding written by another manager.
Json live_claim() {
  return Json::parse(R"({
    "apiVersion": "v1", "kind": "PersistentVolumeClaim",
    "metadata": {"name": "db-1", "namespace": "shop", "labels": {"opctl.io/cluster": "db"},
      "managedFields": [
        {"manager": "opctl-controller", "operation": "Apply", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:labels": {"f:opctl.io/cluster": {}}},
                      "f:spec": {"f:accessModes": {}, "f:resources": {"f:requests": {"f:storage": {}}}}}},
        {"manager": "kube-controller-manager", "operation": "Update", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:volumeName": {}}}}]},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
             "volumeMode": "Filesystem", "volumeName": "pv-1", "storageClassName": "standard"},
    "status": {"phase": "Bound"}
  })");
}

Json pod_fields() {
  return Json::parse(R"({
    "f:spec": {
      "f:containers": {"k:{\"name\":\"postgres\"}": {".": {}, "f:name": {}, "f:image": {},
        "f:env": {"k:{\"name\":\"PGDATA\"}": {".": {}, "f:name": {}, "f:value": {}}},
        "f:ports": {"k:{\"containerPort\":5432,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}}}},
      "f:tolerations": {},
      "f:finalizers": {"v:\"a\"": {}, "v:\"c\"": {}}}
  })");
}

Json live_pod_spec() {
  return Json::parse(R"({"spec": {
    "containers": [{"name": "postgres", "image": "postgres:16", "imagePullPolicy": "IfNotPresent",
      "env": [{"name": "PGDATA", "value": "/data"}, {"name": "INJECTED", "value": "x"}],
      "ports": [{"containerPort": 5432, "protocol": "TCP"}]},
      {"name": "sidecar", "image": "mesh:1"}],
    "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
    "finalizers": ["a", "b", "c"],
    "dnsPolicy": "ClusterFirst"}})");
}
}  // namespace

TEST_CASE("owned_part keeps the fields the manager applied and drops server defaults") {
  auto owned = owned_part(live_claim(), "opctl-controller");
  REQUIRE(owned);
  CHECK((*owned)["spec"] ==
        Json::parse(R"({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}})"));
  CHECK((*owned)["metadata"] == Json::parse(R"({"labels": {"opctl.io/cluster": "db"}})"));
  CHECK_FALSE(owned->contains("status"));
}

TEST_CASE("owned_part is nullopt for a manager with no Apply entry") {
  CHECK_FALSE(owned_part(live_claim(), "kube-controller-manager"));
  CHECK_FALSE(owned_part(live_claim(), "someone-else"));
}

TEST_CASE("owned_values keeps owned keyed elements with their keys, in live order") {
  Json spec = owned_values(live_pod_spec(), pod_fields())["spec"];
  REQUIRE(spec["containers"].size() == 1);
  const Json& postgres = spec["containers"][0];
  CHECK(postgres == Json::parse(R"({"name": "postgres", "image": "postgres:16",
                                    "env": [{"name": "PGDATA", "value": "/data"}],
                                    "ports": [{"containerPort": 5432, "protocol": "TCP"}]})"));
}

TEST_CASE("owned_values keeps an atomic field whole and only the owned members of a set") {
  Json spec = owned_values(live_pod_spec(), pod_fields())["spec"];
  CHECK(spec["tolerations"] == live_pod_spec()["spec"]["tolerations"]);
  CHECK(spec["finalizers"] == Json::parse(R"(["a", "c"])"));
  CHECK_FALSE(spec.contains("dnsPolicy"));
}

TEST_CASE("owned_values leaves out an owned field that is gone from live") {
  Json owned = Json::parse(R"({"f:spec": {"f:replicas": {}, "f:paused": {}}})");
  CHECK(owned_values(Json::parse(R"({"spec": {"replicas": 3}})"), owned) ==
        Json::parse(R"({"spec": {"replicas": 3}})"));
}
