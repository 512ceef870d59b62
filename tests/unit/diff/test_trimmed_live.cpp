#include <catch2/catch.hpp>

#include "diff/field_ownership.hpp"
#include "diff/ignore_rules.hpp"
#include "diff/trimmed_live.hpp"

using opctl::diff::apply_is_noop;
using opctl::diff::trim_live;
using opctl::diff::TrimOptions;
using opctl::model::Json;

namespace {
// A Deployment as the server returns it after opctl applied desired_for_trim(): server
// defaults, status, another manager's entry and field, an env element and a
// container opctl does not own.
Json live_for_trim() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {
      "name": "web", "namespace": "shop", "uid": "u-1", "resourceVersion": "42", "generation": 3,
      "creationTimestamp": "2026-01-01T00:00:00Z",
      "labels": {"app": "web", "theirs": "x"},
      "annotations": {"deployment.kubernetes.io/revision": "1", "opctl.io/source": "git@abc"},
      "managedFields": [
        {"manager": "opctl", "operation": "Apply", "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}, "f:annotations": {"f:opctl.io/source": {}}},
                      "f:spec": {"f:replicas": {}, "f:selector": {},
                                 "f:template": {"f:spec": {"f:containers": {
                                   "k:{\"name\":\"web\"}": {".": {}, "f:name": {}, "f:image": {},
                                     "f:env": {"k:{\"name\":\"A\"}": {".": {}, "f:name": {}, "f:value": {}}},
                                     "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}},
                                     "f:args": {}}}}}}}},
        {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {}}},
        {"manager": "hpa", "operation": "Update", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:template": {"f:spec": {"f:nodeSelector": {}}}}}}
      ]},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "revisionHistoryLimit": 10,
             "template": {"spec": {"containers": [
               {"name": "mesh", "image": "proxy:1"},
               {"name": "web", "image": "nginx:1.27", "args": ["-g", "daemon off;"],
                "env": [{"name": "INJECTED", "value": "x"}, {"name": "A", "value": "1"}],
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}],
               "nodeSelector": {"disk": "ssd"},
               "restartPolicy": "Always"}}},
    "status": {"replicas": 2, "conditions": [{"type": "Available", "status": "True"}]}
  })");
}

Json desired_for_trim() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"},
                 "annotations": {"opctl.io/source": "git@abc"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"spec": {"containers": [
               {"name": "web", "image": "nginx:1.27", "args": ["-g", "daemon off;"],
                "env": [{"name": "A", "value": "1"}], "ports": [{"containerPort": 80}]}]}}}
  })");
}

// Desired objects that differ from live in one way each (and one that does not).
std::vector<Json> variants() {
  std::vector<Json> out{desired_for_trim()};
  auto with = [&](const std::function<void(Json&)>& change) {
    Json object = desired_for_trim();
    change(object);
    out.push_back(std::move(object));
  };
  auto container = [](Json& object) -> Json& { return object["spec"]["template"]["spec"]["containers"][0]; };
  with([](Json& o) { o["spec"]["replicas"] = 3; });
  with([&](Json& o) { container(o)["image"] = "nginx:1.28"; });
  with([](Json& o) { o["metadata"].erase("labels"); });
  with([](Json& o) { o["metadata"]["labels"]["theirs"] = "x"; });
  with([](Json& o) { o["spec"]["revisionHistoryLimit"] = 10; });
  with([](Json& o) { o["spec"]["template"]["spec"]["nodeSelector"] = {{"disk", "ssd"}}; });
  with([&](Json& o) { container(o)["args"] = {"daemon off;", "-g"}; });
  with([&](Json& o) { container(o)["imagePullPolicy"] = "IfNotPresent"; });
  with([&](Json& o) { container(o)["env"].push_back({{"name", "INJECTED"}, {"value", "x"}}); });
  with([&](Json& o) { container(o)["env"][0]["value"] = "2"; });
  with([&](Json& o) { container(o)["ports"][0]["protocol"] = "UDP"; });
  with([](Json& o) {
    auto& containers = o["spec"]["template"]["spec"]["containers"];
    containers.insert(containers.begin(), Json{{"name", "mesh"}, {"image", "proxy:1"}});
  });
  with([](Json& o) { o["spec"]["selector"]["matchLabels"]["tier"] = "front"; });
  with([](Json& o) { o["metadata"]["annotations"]["opctl.io/source"] = "git@def"; });
  with([](Json& o) { o["status"] = {{"replicas", 2}}; });
  return out;
}

TrimOptions opctl_only() {
  TrimOptions options;
  options.manager = "opctl";
  return options;
}
}  // namespace

TEST_CASE("given a live object, trimming keeps its metadata, opctl's entry and the values opctl owns",
          "[trimmed_live]") {
  Json expected = Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {
      "name": "web", "namespace": "shop", "uid": "u-1", "resourceVersion": "42", "generation": 3,
      "labels": {"app": "web", "theirs": "x"},
      "annotations": {"deployment.kubernetes.io/revision": "1", "opctl.io/source": "git@abc"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"spec": {"containers": [
               {"name": "web", "image": "nginx:1.27", "args": ["-g", "daemon off;"],
                "env": [{"name": "A", "value": "1"}],
                "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}}
  })");
  Json entry = live_for_trim()["metadata"]["managedFields"][0];
  entry["fieldsV1"] = entry["fieldsV1"].dump();  // as text: a tree costs a map per field it names
  expected["metadata"]["managedFields"] = Json::array({entry});
  CHECK(trim_live(live_for_trim(), opctl_only()) == expected);
  CHECK(opctl::diff::applied_fields(trim_live(live_for_trim(), opctl_only()), "opctl") ==
        opctl::diff::applied_fields(live_for_trim(), "opctl"));
}

TEST_CASE("apply_is_noop answers the same on a trimmed and on a whole live object", "[trimmed_live]") {
  Json trimmed = trim_live(live_for_trim(), opctl_only());
  REQUIRE(apply_is_noop(desired_for_trim(), trimmed, "opctl"));
  for (const auto& object : variants()) {
    INFO(object.dump());
    CHECK(apply_is_noop(object, trimmed, "opctl") == apply_is_noop(object, live_for_trim(), "opctl"));
  }
  // Another manager's view: it has no Apply entry left, and none whole either.
  CHECK_FALSE(apply_is_noop(desired_for_trim(), trimmed, "hpa"));
}

TEST_CASE("an element two entries name stays whole, and unnamed set members go", "[trimmed_live]") {
  Json object = Json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"x",
    "finalizers":["a","z","b"],
    "managedFields":[{"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}},
                  "f:spec":{"f:ports":{"k:{\"port\":80}":{"f:port":{}},
                                       "k:{\"port\":80,\"protocol\":\"TCP\"}":{"f:name":{}}}}}}]},
    "spec":{"ports":[{"port":80,"protocol":"TCP","name":"http","nodePort":30080}]}})");
  Json trimmed = trim_live(object, opctl_only());
  CHECK(trimmed["metadata"]["finalizers"] == Json{"a", "b"});
  CHECK(trimmed["spec"]["ports"] == object["spec"]["ports"]);
}

TEST_CASE("a trimmed Secret keeps the data its stringData became", "[trimmed_live][secrets]") {
  Json secret = Json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s",
    "managedFields":[{"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1",
      "fieldsV1":{"f:data":{"f:a":{}},"f:stringData":{"f:b":{}}}}]},
    "data":{"a":"YWFh","b":"YmJi","c":"Y2Nj"},"type":"Opaque"})");
  Json wanted = Json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},
    "data":{"a":"YWFh"},"stringData":{"b":"bbb"}})");
  Json trimmed = trim_live(secret, opctl_only());
  CHECK(trimmed["data"] == Json{{"a", "YWFh"}, {"b", "YmJi"}});
  CHECK(apply_is_noop(wanted, trimmed, "opctl"));
  wanted["stringData"]["b"] = "new";
  CHECK_FALSE(apply_is_noop(wanted, trimmed, "opctl"));
}

TEST_CASE("status is kept only when asked (a CRD's conditions, a custom resource's status)",
          "[trimmed_live]") {
  CHECK_FALSE(trim_live(live_for_trim(), opctl_only()).contains("status"));
  TrimOptions options = opctl_only();
  options.keep_status = true;
  CHECK(trim_live(live_for_trim(), options)["status"] == live_for_trim()["status"]);
}

TEST_CASE("ignoreDifferences gives desired the same values from a trimmed and a whole object",
          "[trimmed_live]") {
  // Owned, not owned (another manager's), through a list, missing, malformed, the root.
  std::vector<std::string> pointers = {"/spec/replicas",
                                       "/spec/template/spec/nodeSelector",
                                       "/spec/template/spec/containers/1/image",
                                       "/spec/template/spec/containers/0/image",
                                       "/spec/paused",
                                       "/metadata/labels/theirs",
                                       "spec",
                                       ""};
  opctl::diff::IgnoreRule rule{"apps", "Deployment", "", "", pointers};
  TrimOptions options = opctl_only();
  options.ignored_pointers = pointers;
  Json trimmed = trim_live(live_for_trim(), options);
  const opctl::model::ObjectKey key{"apps", "Deployment", "shop", "web"};
  for (auto object : variants()) {
    INFO(object.dump());
    Json from_whole = object, from_trimmed = object;
    opctl::diff::keep_live_values_of_ignored_fields(from_whole, live_for_trim(), key, {rule}, "opctl");
    opctl::diff::keep_live_values_of_ignored_fields(from_trimmed, trimmed, key, {rule}, "opctl");
    CHECK(from_trimmed == from_whole);
    CHECK(apply_is_noop(from_trimmed, trimmed, "opctl") ==
          apply_is_noop(from_whole, live_for_trim(), "opctl"));
  }
  CHECK(trimmed["spec"]["template"]["spec"]["nodeSelector"] == Json{{"disk", "ssd"}});
  CHECK(trimmed["spec"]["template"]["spec"]["containers"] ==
        live_for_trim()["spec"]["template"]["spec"]["containers"]);
}
