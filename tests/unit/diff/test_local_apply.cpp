#include <catch2/catch.hpp>

#include "diff/local_apply.hpp"

using opctl::diff::local_apply;
using opctl::model::Json;

namespace {
// A Deployment opctl applied (env A, B; port 80 without protocol) to which
// another manager added env THEIRS and a label.
Json live_for_apply() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web", "theirs": "x"},
      "managedFields": [{"manager": "opctl", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {
        "f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {"f:selector": {}, "f:template": {"f:spec": {"f:containers": {
          "k:{\"name\":\"web\"}": {".": {}, "f:name": {}, "f:image": {},
            "f:env": {"k:{\"name\":\"A\"}": {".": {}, "f:name": {}, "f:value": {}},
                      "k:{\"name\":\"B\"}": {".": {}, "f:name": {}, "f:value": {}}},
            "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}}}}}}}}}]},
    "spec": {"selector": {"matchLabels": {"app": "web", "tier": "front"}},
      "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27",
        "env": [{"name": "A", "value": "1"}, {"name": "THEIRS", "value": "t"}, {"name": "B", "value": "2"}],
        "ports": [{"containerPort": 80, "protocol": "TCP"}], "imagePullPolicy": "IfNotPresent"}]}}}
  })");
}

Json desired_for_apply() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
    "spec": {"selector": {"matchLabels": {"app": "web", "tier": "front"}},
      "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27",
        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        "ports": [{"containerPort": 80}]}]}}}
  })");
}

const Json& container(const Json& object) {
  return object["spec"]["template"]["spec"]["containers"][0];
}
}  // namespace

TEST_CASE("given the applied object unchanged, the local apply changes nothing", "[localapply]") {
  Json result = local_apply(live_for_apply(), desired_for_apply(), "opctl");
  CHECK(result == live_for_apply());
}

TEST_CASE("an env var removed from git goes, another manager's stays", "[localapply]") {
  Json removed = desired_for_apply();
  removed["spec"]["template"]["spec"]["containers"][0]["env"].erase(1);
  Json result = local_apply(live_for_apply(), removed, "opctl");
  CHECK(container(result)["env"] ==
        Json::parse(R"([{"name":"A","value":"1"},{"name":"THEIRS","value":"t"}])"));
}

TEST_CASE("an env var added in git is appended; a changed one changes in place", "[localapply]") {
  Json changed = desired_for_apply();
  auto& env = changed["spec"]["template"]["spec"]["containers"][0]["env"];
  env[0]["value"] = "one";
  env.push_back({{"name", "C"}, {"value", "3"}});
  Json result = local_apply(live_for_apply(), changed, "opctl");
  CHECK(container(result)["env"] == Json::parse(R"([{"name":"A","value":"one"},{"name":"THEIRS","value":"t"},
    {"name":"B","value":"2"},{"name":"C","value":"3"}])"));
  CHECK(container(result)["imagePullPolicy"] == "IfNotPresent");  // a server default stays
}

TEST_CASE("a port without protocol is the live TCP port, a new port is added", "[localapply]") {
  Json more = desired_for_apply();
  more["spec"]["template"]["spec"]["containers"][0]["ports"].push_back({{"containerPort", 443}});
  Json result = local_apply(live_for_apply(), more, "opctl");
  CHECK(container(result)["ports"] ==
        Json::parse(R"([{"containerPort":80,"protocol":"TCP"},{"containerPort":443}])"));
}

TEST_CASE("an atomic struct (a LabelSelector) is replaced whole", "[localapply]") {
  Json narrower = desired_for_apply();
  narrower["spec"]["selector"]["matchLabels"].erase("tier");
  Json result = local_apply(live_for_apply(), narrower, "opctl");
  CHECK(result["spec"]["selector"]["matchLabels"] == Json{{"app", "web"}});
}

TEST_CASE("a label opctl gave up goes, another manager's label stays", "[localapply]") {
  Json unlabelled = desired_for_apply();
  unlabelled["metadata"].erase("labels");
  Json result = local_apply(live_for_apply(), unlabelled, "opctl");
  CHECK(result["metadata"]["labels"] == Json{{"theirs", "x"}});
}

TEST_CASE("a reordered list takes the desired order, others' elements before their live successor",
          "[localapply]") {
  // As the API server orders it (checked against kube-apiserver 1.36).
  Json reordered = desired_for_apply();
  auto& env = reordered["spec"]["template"]["spec"]["containers"][0]["env"];
  std::swap(env[0], env[1]);
  Json result = local_apply(live_for_apply(), reordered, "opctl");
  std::vector<std::string> names;
  for (const auto& item : container(result)["env"])
    names.push_back(item["name"]);
  CHECK(names == std::vector<std::string>{"THEIRS", "B", "A"});
}

TEST_CASE("a Secret's stringData lands in data, encoded, as the server stores it", "[localapply][secrets]") {
  Json secret =
      Json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"a":"YWFh"}})");
  Json wanted = Json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},
    "stringData":{"b":"bbb","a":"xy"}})");
  Json result = local_apply(secret, wanted, "opctl");
  CHECK_FALSE(result.contains("stringData"));
  CHECK(result["data"] == Json{{"a", "eHk="}, {"b", "YmJi"}});
}

TEST_CASE("set lists keep others' values and drop the ones opctl gave up", "[localapply]") {
  Json namespace_object = Json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x",
    "finalizers":["a","theirs","b"],
    "managedFields":[{"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}}}}]}})");
  Json wanted =
      Json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x","finalizers":["a","c"]}})");
  Json result = local_apply(namespace_object, wanted, "opctl");
  CHECK(result["metadata"]["finalizers"] == Json{"a", "c", "theirs"});
}
