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
  extra_container["spec"]["template"]["spec"]["containers"].push_back(
      {{"name", "sidecar"}, {"image", "busybox"}});
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

TEST_CASE("set lists (v:) match by value, in the same order", "[fastpath]") {
  Json live_object = Json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x",
    "finalizers":["a","b"],
    "managedFields":[{"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}}}}]}})");
  Json wanted =
      Json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x","finalizers":["a","b"]}})");
  CHECK(apply_is_noop(wanted, live_object, "opctl"));
  wanted["metadata"]["finalizers"] = {"a"};
  CHECK_FALSE(apply_is_noop(wanted, live_object, "opctl"));
  // An apply puts set elements in the order it gives them.
  wanted["metadata"]["finalizers"] = {"b", "a"};
  CHECK_FALSE(apply_is_noop(wanted, live_object, "opctl"));
}

TEST_CASE("given a reordered associative list, the apply is not a no-op (it reorders live)", "[fastpath]") {
  Json live_object = Json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},
    "spec":{"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}})");
  live_object["metadata"]["managedFields"] = Json::parse(R"([{"manager":"opctl","operation":"Apply",
    "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:env":{
      "k:{\"name\":\"A\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"B\"}":{".":{},"f:name":{},"f:value":{}}}}}}])");
  Json same = Json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},
    "spec":{"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}})");
  CHECK(apply_is_noop(same, live_object, "opctl"));
  Json reordered = same;
  std::swap(reordered["spec"]["env"][0], reordered["spec"]["env"][1]);
  CHECK_FALSE(apply_is_noop(reordered, live_object, "opctl"));
  // Another manager's element in between does not matter.
  live_object["spec"]["env"].insert(live_object["spec"]["env"].begin() + 1,
                                    Json{{"name", "THEIRS"}, {"value", "x"}});
  CHECK(apply_is_noop(same, live_object, "opctl"));
}

namespace {
// A Service as the server returns it: protocol defaulted into each port's key.
Json service_with_port(const std::string& live_protocol, bool protocol_applied = false) {
  Json service = Json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},
    "spec":{"ports":[{"port":80,"targetPort":80}]}})");
  service["spec"]["ports"][0]["protocol"] = live_protocol;
  Json key = {{"port", 80}, {"protocol", live_protocol}};
  Json port_fields = {{".", Json::object()}, {"f:port", Json::object()}};
  if (protocol_applied) port_fields["f:protocol"] = Json::object();
  Json fields = {{"f:spec", {{"f:ports", {{"k:" + key.dump(), port_fields}}}}}};
  service["metadata"]["managedFields"] = {
      {{"manager", "opctl"}, {"operation", "Apply"}, {"fieldsType", "FieldsV1"}, {"fieldsV1", fields}}};
  return service;
}
}  // namespace

TEST_CASE("a list key field left out matches only its known default (protocol TCP)", "[fastpath]") {
  Json desired = Json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},
    "spec":{"ports":[{"port":80}]}})");
  CHECK(apply_is_noop(desired, service_with_port("TCP"), "opctl"));
  // Leaving protocol out would default it to TCP: the apply changes an SCTP port.
  CHECK_FALSE(apply_is_noop(desired, service_with_port("SCTP"), "opctl"));
  desired["spec"]["ports"][0]["protocol"] = "SCTP";
  CHECK(apply_is_noop(desired, service_with_port("SCTP", true), "opctl"));
}

TEST_CASE("a custom kind's list key field left out is not certain (its default is unknown)", "[fastpath]") {
  Json live_object = service_with_port("TCP");
  live_object["apiVersion"] = "example.com/v1";
  live_object["kind"] = "Widget";
  Json desired = Json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"web"},
    "spec":{"ports":[{"port":80}]}})");
  CHECK_FALSE(apply_is_noop(desired, live_object, "opctl"));
}

namespace {
// A Secret after opctl applied data {a: "aaa"} and stringData {b: "bbb"}:
// the server wrote b into data and keeps no stringData.
Json secret_live() {
  return Json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s",
    "managedFields":[{"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1",
      "fieldsV1":{"f:data":{"f:a":{}},"f:stringData":{"f:b":{}}}}]},
    "data":{"a":"YWFh","b":"YmJi"},"type":"Opaque"})");
}
Json secret_desired(const std::string& b) {
  Json desired =
      Json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"a":"YWFh"}})");
  desired["stringData"] = {{"b", b}};
  return desired;
}
}  // namespace

TEST_CASE("a Secret's stringData is unchanged when data holds its encoding", "[fastpath][secrets]") {
  CHECK(apply_is_noop(secret_desired("bbb"), secret_live(), "opctl"));
  CHECK_FALSE(apply_is_noop(secret_desired("new"), secret_live(), "opctl"));
  Json dropped = secret_desired("bbb");
  dropped.erase("stringData");
  CHECK_FALSE(apply_is_noop(dropped, secret_live(), "opctl"));
  Json both = secret_desired("bbb");
  both["data"]["b"] = "YmJi";  // in data and stringData: not certain which the server keeps
  CHECK_FALSE(apply_is_noop(both, secret_live(), "opctl"));
}

TEST_CASE("another kind with the same fields is not a no-op", "[fastpath]") {
  Json other = desired();
  other["kind"] = "StatefulSet";
  CHECK_FALSE(apply_is_noop(other, live(), "opctl"));
}
