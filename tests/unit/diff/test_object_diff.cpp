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
  CHECK(normalize(live) == Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}}},
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
  CHECK(compare_objects(k_secret_key, "v1", {}, secret("b2xk"), secret("b2xk"), {}).change == Change::unchanged);
}

TEST_CASE("added and pruned objects have one side only", "[diff]") {
  auto added = compare_objects(k_secret_key, "v1", {}, Json(), secret("eA=="), {});
  CHECK(added.change == Change::added);
  CHECK(added.after["data"]["password"] == k_masked_after);
  auto pruned = compare_objects(k_secret_key, "v1", {}, secret("eA=="), Json(), {});
  CHECK(pruned.change == Change::pruned);
}

TEST_CASE("ignore rules leave fields out of the comparison", "[diff]") {
  Json before = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", "web"}}},
                 {"spec", {{"replicas", 5}}}};
  Json after = before;
  after["spec"]["replicas"] = 2;
  ObjectKey key{"apps", "Deployment", "shop", "web"};
  CHECK(compare_objects(key, "apps/v1", {}, before, after, {}).changed_paths == std::vector<std::string>{"/spec/replicas"});
  CompareOptions options;
  options.ignore_rules.push_back({"apps", "Deployment", "", "", {"/spec/replicas"}});
  CHECK(compare_objects(key, "apps/v1", {}, before, after, options).change == Change::unchanged);
  options.ignore_rules[0].name = "other";
  CHECK(compare_objects(key, "apps/v1", {}, before, after, options).change == Change::changed);
}

TEST_CASE("local apply merges maps and keyed lists, keeps others' fields, drops fields opctl gave up", "[diff]") {
  Json live = Json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c",
    "labels":{"mine":"1","theirs":"2"},
    "managedFields":[{"manager":"opctl","operation":"Apply","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:labels":{"f:mine":{}}},"f:data":{"f:old":{},"f:kept":{}}}}]},
    "data":{"old":"x","kept":"y","foreign":"z"}})");
  Json desired = Json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"mine":"1"}},
    "data":{"kept":"y2","new":"n"}})");
  Json result = local_apply(live, desired, "opctl");
  CHECK(result["data"] == Json{{"kept", "y2"}, {"new", "n"}, {"foreign", "z"}});
  CHECK(result["metadata"]["labels"] == Json{{"mine", "1"}, {"theirs", "2"}});
}
