#include <catch2/catch.hpp>

#include "validate/manifest_loading.hpp"

using opctl::validate::load_manifests;

TEST_CASE("a bad document does not hide the good ones of its file", "[validate][loading]") {
  // Given a file whose second document lacks a name, we should keep the first and third for later checks.
  auto loaded = load_manifests({{"a.yaml",
                                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n---\n"
                                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n---\n"
                                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: three}\n"}});
  REQUIRE(loaded.objects.size() == 2);
  CHECK(loaded.objects[1].name() == "three");
  CHECK(loaded.objects[1].location().line == 9);
  REQUIRE(loaded.problems.size() == 1);
  CHECK(loaded.problems[0].field == "metadata.name");
}

TEST_CASE("a syntax error in one file does not hide other files", "[validate][loading]") {
  auto loaded = load_manifests({
      {"a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n"},
      {"b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"},
  });
  REQUIRE(loaded.objects.size() == 1);
  CHECK(loaded.objects[0].name() == "b");
  REQUIRE(loaded.problems.size() == 1);
  CHECK(loaded.problems[0].file == "a.yaml");
}

TEST_CASE("duplicates are reported once, inside a file or across files", "[validate][loading]") {
  std::string config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice, namespace: shop}\n";
  auto loaded = load_manifests({{"a.yaml", config_map + "---\n" + config_map}, {"b.yaml", config_map}});
  REQUIRE(loaded.problems.size() == 2);
  CHECK(loaded.problems[0].file == "a.yaml");
  CHECK(loaded.problems[0].line == 5);
  CHECK(loaded.problems[1].file == "b.yaml");
  CHECK(loaded.problems[1].message == "duplicate object ConfigMap shop/twice (first defined at a.yaml:1)");
}
