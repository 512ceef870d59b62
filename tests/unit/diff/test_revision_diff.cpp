// Two revisions of the manifests compared, without a cluster (diff --base).
#include <catch2/catch.hpp>

#include "diff/revision_diff.hpp"
#include "diff/secret_masking.hpp"
#include "model/base64.hpp"

using namespace opctl::diff;
using opctl::model::base64_encode;
using opctl::model::Json;
using opctl::model::Object;

namespace {

Object config_map(const std::string& name, const std::string& value) {
  return Object({{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", {{"name", name}, {"namespace", "shop"}}},
                 {"data", {{"key", value}}}},
                {"cm.yaml", 1});
}

Object secret(const Json& fields) {
  Json body = {
      {"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "db"}, {"namespace", "shop"}}}};
  body.update(fields);
  return Object(body, {"secret.yaml", 1});
}

const ObjectDiff& find(const std::vector<ObjectDiff>& diffs, const std::string& name) {
  for (const auto& diff : diffs)
    if (diff.key.name == name) return diff;
  FAIL("no diff for " << name);
  return diffs.front();
}

}  // namespace

TEST_CASE("objects added, removed, changed and unchanged between revisions", "[revision_diff]") {
  // Given a base and a head set, we should classify every object by identity and name what changed.
  std::vector<Object> base = {config_map("kept", "1"), config_map("edited", "1"), config_map("gone", "1")};
  std::vector<Object> head = {config_map("new", "1"), config_map("edited", "2"), config_map("kept", "1")};
  auto diffs = compare_revisions(base, head, {});
  REQUIRE(diffs.size() == 4);
  CHECK(find(diffs, "kept").change == Change::unchanged);
  CHECK(find(diffs, "new").change == Change::added);
  CHECK(find(diffs, "gone").change == Change::removed);
  CHECK(find(diffs, "gone").after.is_null());
  const auto& edited = find(diffs, "edited");
  CHECK(edited.change == Change::changed);
  CHECK(edited.changed_paths == std::vector<std::string>{"/data/key"});
  CHECK(std::string(to_string(Change::removed)) == "removed");
  // Sorted by identity: a stable order for reports.
  CHECK(diffs[0].key.name == "edited");
  CHECK(diffs[3].key.name == "new");
}

TEST_CASE("a Secret's values never show in a revision diff, and stringData counts as data",
          "[revision_diff][secrets]") {
  // Given a Secret whose value changed, we should count the change but show only masks.
  auto changed = compare_revisions({secret({{"stringData", {{"password", "old"}}}})},
                                   {secret({{"stringData", {{"password", "new"}}}})}, {});
  REQUIRE(changed.size() == 1);
  CHECK(changed[0].change == Change::changed);
  CHECK(changed[0].before["data"]["password"] == k_masked_before);
  CHECK(changed[0].after["data"]["password"] == k_masked_after);
  CHECK(changed[0].after.dump().find("new") == std::string::npos);
  // The same value moved from stringData to data is no change.
  auto moved = compare_revisions({secret({{"stringData", {{"password", "same"}}}})},
                                 {secret({{"data", {{"password", base64_encode("same")}}}})}, {});
  CHECK(moved[0].change == Change::unchanged);
}
