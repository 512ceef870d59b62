#include <catch2/catch.hpp>

#include "diff/ignore_rules.hpp"
#include "diff/local_apply.hpp"
#include "diff/normalize.hpp"
#include "diff/object_diff.hpp"
#include "diff/secret_masking.hpp"

using namespace opctl::diff;
using opctl::model::Json;
using opctl::model::ObjectKey;

namespace {
Json secret(const std::string& password) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", "db"}, {"namespace", "shop"}}},
          {"data", {{"password", password}, {"user", "YWRtaW4="}}}};
}
const ObjectKey k_secret_key{"", "Secret", "shop", "db"};
}  // namespace

TEST_CASE("normalise drops server-owned metadata, status and last-applied", "[diff]") {
  Json live = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata",
                {{"name", "x"},
                 {"uid", "u"},
                 {"resourceVersion", "1"},
                 {"generation", 2},
                 {"creationTimestamp", "t"},
                 {"managedFields", Json::array()},
                 {"annotations", {{k_last_applied_annotation, "{}"}}}}},
               {"status", {{"phase", "x"}}},
               {"data", {{"a", "b"}}}};
  CHECK(normalize(live) == Json{{"apiVersion", "v1"},
                                {"kind", "ConfigMap"},
                                {"metadata", {{"name", "x"}}},
                                {"data", {{"a", "b"}}}});
}

TEST_CASE("secret values are masked, and changed ones are marked", "[diff][secrets]") {
  auto diff = compare_objects(k_secret_key, "v1", {}, secret("b2xk"), secret("bmV3"), {});
  CHECK(diff.change == Change::changed);
  CHECK(diff.before["data"]["password"] == k_masked_before);
  CHECK(diff.after["data"]["password"] == k_masked_after);
  CHECK(diff.before["data"]["user"] == k_masked);
  std::string text = render_unified(diff);
  CHECK(text.find("b2xk") == std::string::npos);
  CHECK(text.find("bmV3") == std::string::npos);
  CHECK(text.find("YWRtaW4=") == std::string::npos);
}

TEST_CASE("an unchanged secret is unchanged even though masked", "[diff][secrets]") {
  CHECK(compare_objects(k_secret_key, "v1", {}, secret("b2xk"), secret("b2xk"), {}).change ==
        Change::unchanged);
}

TEST_CASE("added and pruned objects have one side only", "[diff]") {
  auto added = compare_objects(k_secret_key, "v1", {}, Json(), secret("eA=="), {});
  CHECK(added.change == Change::added);
  CHECK(added.after["data"]["password"] == k_masked_after);
  auto pruned = compare_objects(k_secret_key, "v1", {}, secret("eA=="), Json(), {});
  CHECK(pruned.change == Change::pruned);
}

TEST_CASE("ignore rules leave fields out of the comparison", "[diff]") {
  Json before = {{"apiVersion", "apps/v1"},
                 {"kind", "Deployment"},
                 {"metadata", {{"name", "web"}}},
                 {"spec", {{"replicas", 5}}}};
  Json after = before;
  after["spec"]["replicas"] = 2;
  ObjectKey key{"apps", "Deployment", "shop", "web"};
  CHECK(compare_objects(key, "apps/v1", {}, before, after, {}).changed_paths ==
        std::vector<std::string>{"/spec/replicas"});
  CompareOptions options;
  options.ignore_rules.push_back({"apps", "Deployment", "", "", {"/spec/replicas"}});
  CHECK(compare_objects(key, "apps/v1", {}, before, after, options).change == Change::unchanged);
  options.ignore_rules[0].name = "other";
  CHECK(compare_objects(key, "apps/v1", {}, before, after, options).change == Change::changed);
}

TEST_CASE("local apply merges maps and keyed lists, keeps others' fields, drops fields opctl gave up",
          "[diff]") {
  Json live = Json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c",
    "labels":{"mine":"1","theirs":"2"},
    "managedFields":[{"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:labels":{"f:mine":{}}},"f:data":{"f:old":{},"f:kept":{}}}}]},
    "data":{"old":"x","kept":"y","foreign":"z"}})");
  Json desired =
      Json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"mine":"1"}},
    "data":{"kept":"y2","new":"n"}})");
  Json result = local_apply(live, desired, "opctl");
  CHECK(result["data"] == Json{{"kept", "y2"}, {"new", "n"}, {"foreign", "z"}});
  CHECK(result["metadata"]["labels"] == Json{{"mine", "1"}, {"theirs", "2"}});
}

TEST_CASE("changed paths name the list element removed, added or changed, not every index after it",
          "[diff]") {
  Json before =
      Json::parse(R"({"env":[{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","value":"3"}]})");
  Json removed = Json::parse(R"({"env":[{"name":"A","value":"1"},{"name":"C","value":"3"}]})");
  CHECK(changed_paths(before, removed) == std::vector<std::string>{"/env/1"});
  Json added = before;
  added["env"].push_back({{"name", "D"}, {"value", "4"}});
  CHECK(changed_paths(before, added) == std::vector<std::string>{"/env/3"});
  Json changed = before;
  changed["env"][1]["value"] = "two";
  CHECK(changed_paths(before, changed) == std::vector<std::string>{"/env/1/value"});
  Json fields = {{"a", 1}, {"b", {{"c", 2}}}};
  CHECK(changed_paths(fields, Json{{"b", {{"c", 3}}}, {"d", 4}}) ==
        std::vector<std::string>{"/a", "/b/c", "/d"});
  CHECK(changed_paths(fields, fields).empty());
}

TEST_CASE("an added Secret written with stringData shows no value", "[diff][secrets]") {
  Json written = {{"apiVersion", "v1"},
                  {"kind", "Secret"},
                  {"metadata", {{"name", "db"}, {"namespace", "shop"}}},
                  {"stringData", {{"password", "hunter2"}}}};
  auto diff = compare_objects(k_secret_key, "v1", {}, Json(), written, {});
  CHECK(diff.after["stringData"]["password"] == k_masked_after);
  CHECK(render_unified(diff).find("hunter2") == std::string::npos);
}

TEST_CASE("ignore rules match by group, kind, namespace and name; bad pointers are skipped", "[diff]") {
  ObjectKey key{"apps", "Deployment", "shop", "web"};
  CHECK(IgnoreRule{"*", "", "", "", {}}.matches(key));
  CHECK(IgnoreRule{"apps", "*", "shop", "web", {}}.matches(key));
  CHECK_FALSE(IgnoreRule{"", "Deployment", "", "", {}}.matches(key));  // empty group: the core group
  CHECK_FALSE(IgnoreRule{"apps", "Deployment", "other", "", {}}.matches(key));
  Json object = {{"spec", {{"replicas", 2}, {"list", {1, 2, 3}}}}};
  remove_ignored_fields(
      object, key, {{"apps", "Deployment", "", "", {"/spec/list/1", "/spec/list/x", "/a~2", "/missing"}}});
  CHECK(object == Json{{"spec", {{"replicas", 2}, {"list", {1, 3}}}}});
}

TEST_CASE("a list element replaced by another with a different name is a removal and an addition", "[diff]") {
  Json before = Json::parse(R"({"ports":[{"name":"http","port":80},{"name":"metrics","port":9090}]})");
  Json after = Json::parse(R"({"ports":[{"name":"http","port":80},{"name":"https","port":443}]})");
  CHECK(changed_paths(before, after) == std::vector<std::string>{"/ports/1"});
  Json renumbered = Json::parse(R"({"ports":[{"name":"http","port":8080},{"name":"metrics","port":9090}]})");
  CHECK(changed_paths(before, renumbered) == std::vector<std::string>{"/ports/0/port"});
  CHECK(changed_paths(Json::parse("[1,2,3]"), Json::parse("[1,5,3]")) == std::vector<std::string>{"/1"});
}
