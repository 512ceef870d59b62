#include <catch2/catch.hpp>

#include "diff/field_ownership.hpp"

using opctl::diff::apply_is_noop;
using opctl::model::Json;

namespace {
// A Deployment as the server returns it after `opctl` applied `desired()`:
// defaults filled in, another manager's field, opctl's FieldsV1.
Json live() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {
      "name": "web", "namespace": "shop", "resourceVersion": "42", "generation": 3,
      "labels": {"app": "web"},
      "annotations": {"deployment.kubernetes.io/revision": "1"},
      "managedFields": [
        {"manager": "opctl", "operation": "Apply", "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}},
                      "f:spec": {"f:replicas": {}, "f:selector": {},
                                 "f:template": {"f:spec": {"f:containers": {
                                   "k:{\"name\":\"web\"}": {".": {}, "f:name": {}, "f:image": {},
                                     "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}},
                                     "f:args": {}}}}}}}},
        {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {}}}
      ]},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "revisionHistoryLimit": 10,
             "template": {"spec": {"containers": [
               {"name": "web", "image": "nginx:1.27", "args": ["-g", "daemon off;"],
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}],
               "restartPolicy": "Always"}}},
    "status": {"replicas": 2}
  })");
}

Json desired() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"spec": {"containers": [
               {"name": "web", "image": "nginx:1.27", "args": ["-g", "daemon off;"],
                "ports": [{"containerPort": 80}]}]}}}
  })");
}
}  // namespace

TEST_CASE("given an object opctl applied and nothing changed, the apply is a no-op", "[fastpath]") {
  CHECK(apply_is_noop(desired(), live(), "opctl"));
}

TEST_CASE("a changed value is not a no-op", "[fastpath]") {
  Json changed = desired();
  changed["spec"]["replicas"] = 3;
  CHECK_FALSE(apply_is_noop(changed, live(), "opctl"));
  Json image = desired();
  image["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28";
  CHECK_FALSE(apply_is_noop(image, live(), "opctl"));
}

TEST_CASE("a field removed from git that opctl owns is not a no-op", "[fastpath]") {
  Json removed = desired();
  removed["metadata"].erase("labels");
  CHECK_FALSE(apply_is_noop(removed, live(), "opctl"));
}

TEST_CASE("a field added in git that opctl does not own yet is not a no-op", "[fastpath]") {
  Json added = desired();
  added["spec"]["revisionHistoryLimit"] = 10;  // same value as live, but not owned: the apply takes ownership
  CHECK_FALSE(apply_is_noop(added, live(), "opctl"));
}

TEST_CASE("an atomic list compares whole, an associative list by its keys", "[fastpath]") {
  Json reordered_args = desired();
  reordered_args["spec"]["template"]["spec"]["containers"][0]["args"] = {"daemon off;", "-g"};
  CHECK_FALSE(apply_is_noop(reordered_args, live(), "opctl"));
  Json extra_container = desired();
  extra_container["spec"]["template"]["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "busybox"}});
  CHECK_FALSE(apply_is_noop(extra_container, live(), "opctl"));
}

TEST_CASE("without an Apply entry of the manager the answer is no", "[fastpath]") {
  CHECK_FALSE(apply_is_noop(desired(), live(), "someone-else"));
  Json bare = live();
  bare["metadata"].erase("managedFields");
  CHECK_FALSE(apply_is_noop(desired(), bare, "opctl"));
}

TEST_CASE("another apiVersion is not certain", "[fastpath]") {
  Json other = desired();
  other["apiVersion"] = "apps/v1beta2";
  CHECK_FALSE(apply_is_noop(other, live(), "opctl"));
}

TEST_CASE("set lists (v:) match by value", "[fastpath]") {
  Json live_object = Json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x",
    "finalizers":["a","b"],
    "managedFields":[{"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}}}}]}})");
  Json wanted = Json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x","finalizers":["b","a"]}})");
  CHECK(apply_is_noop(wanted, live_object, "opctl"));
  wanted["metadata"]["finalizers"] = {"a"};
  CHECK_FALSE(apply_is_noop(wanted, live_object, "opctl"));
}
