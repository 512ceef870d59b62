#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "source/manifest_parser.hpp"

using opctl::InvalidInputError;
using opctl::source::ManifestFile;
using opctl::source::parse_manifests;

namespace {
std::vector<opctl::Problem> problems_of(const std::vector<ManifestFile>& files) {
  try {
    parse_manifests(files);
  } catch (const InvalidInputError& error) {
    return error.problems();
  }
  return {};
}
}  // namespace

TEST_CASE("objects from several files and documents keep their file and line", "[manifests]") {
  auto objects = parse_manifests({
      {"a.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"},
      {"b.yaml",
       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\n"
       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n  namespace: shop\n"},
  });
  REQUIRE(objects.size() == 3);
  CHECK(objects[2].name() == "two");
  CHECK(objects[2].namespace_name() == "shop");
  CHECK(objects[2].location().file == "b.yaml");
  CHECK(objects[2].location().line == 6);
}

TEST_CASE("a kind: List is expanded into its items with their own lines", "[manifests]") {
  auto objects = parse_manifests({{"list.yaml",
                                   "apiVersion: v1\nkind: List\nitems:\n"
                                   "  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a\n"
                                   "  - apiVersion: v1\n    kind: Secret\n    metadata:\n      name: b\n"}});
  REQUIRE(objects.size() == 2);
  CHECK(objects[0].kind() == "ConfigMap");
  CHECK(objects[1].kind() == "Secret");
  CHECK(objects[1].location().line == 8);
  CHECK(objects[1].line_of("/metadata/name") == 11);
}

TEST_CASE("a typed list is expanded as kubectl expands it", "[manifests]") {
  // Items of a ConfigMapList without apiVersion and kind are v1 ConfigMaps;
  // an item that names its own kind keeps it, even in a list of another kind.
  auto objects =
      parse_manifests({{"typed.yaml",
                        "apiVersion: v1\nkind: ConfigMapList\nmetadata:\n  resourceVersion: \"7\"\n"
                        "items:\n"
                        "  - metadata:\n      name: a\n"
                        "  - apiVersion: v1\n    kind: Secret\n    metadata:\n      name: b\n"
                        "---\n"
                        "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBindingList\nitems:\n"
                        "  - metadata:\n      name: c\n      namespace: shop\n"
                        "    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}\n"}});
  REQUIRE(objects.size() == 3);
  CHECK(objects[0].api_version() == "v1");
  CHECK(objects[0].kind() == "ConfigMap");
  CHECK(objects[0].location().line == 6);
  CHECK(objects[1].kind() == "Secret");
  CHECK(objects[1].line_of("/metadata/name") == 11);
  CHECK(objects[2].api_version() == "rbac.authorization.k8s.io/v1");
  CHECK(objects[2].kind() == "RoleBinding");
  CHECK(objects[2].namespace_name() == "shop");
}

TEST_CASE("an item of kind: List must name its own kind, and a kind not ending in List is an object",
          "[manifests]") {
  auto problems =
      problems_of({{"l.yaml", "apiVersion: v1\nkind: List\nitems:\n  - metadata:\n      name: a\n"}});
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].to_string() == "l.yaml:4: apiVersion: missing required field \"apiVersion\"");
  CHECK(problems[1].to_string() == "l.yaml:4: kind: missing required field \"kind\"");
  auto objects = parse_manifests(
      {{"t.yaml", "apiVersion: example.com/v1\nkind: Playlist\nmetadata:\n  name: p\nitems: [song]\n"}});
  REQUIRE(objects.size() == 1);
  CHECK(objects[0].kind() == "Playlist");
}

TEST_CASE("a typed list whose items are not a list names its kind", "[manifests]") {
  auto problems = problems_of({{"x.yaml", "apiVersion: v1\nkind: SecretList\nitems: {}\n"}});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].to_string() == "x.yaml:1: items: a SecretList's items must be a list");
}

TEST_CASE("JSON manifests are read too", "[manifests]") {
  auto objects = parse_manifests(
      {{"cm.json", R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}})"}});
  REQUIRE(objects.size() == 1);
  CHECK(objects[0].name() == "j");
}

TEST_CASE("identity problems name the file, line and field", "[manifests]") {
  auto problems = problems_of({{"x.yaml",
                                "apiVersion: v1\nmetadata:\n  name: a\n---\n"
                                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 7\n"}});
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].file == "x.yaml");
  CHECK(problems[0].line == 1);
  CHECK(problems[0].field == "kind");
  CHECK(problems[0].to_string() == "x.yaml:1: kind: missing required field \"kind\"");
  CHECK(problems[1].field == "metadata.name");
  CHECK(problems[1].line == 8);
}

TEST_CASE("a label that is not a string is an error pointing at it", "[manifests]") {
  auto problems = problems_of({{"l.yaml",
                                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n"
                                "    enabled: true\n"}});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "metadata.labels.enabled");
  CHECK(problems[0].line == 6);
}

TEST_CASE("duplicates are reported with both places", "[manifests]") {
  auto problems = problems_of({
      {"a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n  namespace: shop\n"},
      {"b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n  namespace: shop\n"},
  });
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].file == "b.yaml");
  CHECK_THAT(problems[0].message, Catch::Contains("a.yaml:1"));
}

TEST_CASE("the same name in another namespace or kind is not a duplicate", "[manifests]") {
  CHECK(parse_manifests(
            {
                {"a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: a\n"},
                {"b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: b\n"},
                {"c.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cm\n  namespace: a\n"},
            })
            .size() == 3);
}

TEST_CASE("problems in every file are reported together", "[manifests]") {
  auto problems = problems_of({
      {"bad-syntax.yaml", "a: [\n"},
      {"no-name.yaml", "apiVersion: v1\nkind: ConfigMap\n"},
      {"not-utf8.yaml", std::string("apiVersion: v1\nkind: \xff\n")},
      {"scalar.yaml", "just a string\n"},
  });
  REQUIRE(problems.size() == 4);
  CHECK(problems[0].file == "bad-syntax.yaml");
  CHECK(problems[1].file == "no-name.yaml");
  CHECK(problems[2].file == "not-utf8.yaml");
  CHECK(problems[2].line == 2);
  CHECK(problems[3].file == "scalar.yaml");
}

TEST_CASE("a file over the size limit is refused", "[manifests]") {
  opctl::source::ParseOptions options;
  options.file_limits.max_file_bytes = 10;
  CHECK_THROWS_WITH(parse_manifests({{"big.yaml", std::string(11, 'a')}}, options),
                    Catch::Contains("over the limit"));
}

TEST_CASE("names the API server would refuse are errors naming file, line and field", "[manifests]") {
  // Given an uppercase ConfigMap name, a dotted Namespace and a Service starting with a digit, we should
  // report each where it is; RBAC names with ':' are fine.
  auto problems = problems_of({{"a.yaml",
                                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: MyConfig\n---\n"
                                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team.a\n---\n"
                                "apiVersion: v1\nkind: Service\nmetadata:\n  name: 1web\n---\n"
                                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"
                                "metadata:\n  name: system:reader\n---\n"
                                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok.example-1\n"}});
  REQUIRE(problems.size() == 3);
  CHECK(problems[0].to_string() ==
        "a.yaml:4: metadata.name: \"MyConfig\" must be a DNS-1123 subdomain: lowercase "
        "letters, digits, '-' and '.', starting and ending with a letter or digit, at "
        "most 253 characters");
  CHECK(problems[1].line == 9);
  CHECK_THAT(problems[1].message, Catch::Contains("DNS-1123 label"));
  CHECK_THAT(problems[2].message, Catch::Contains("DNS-1035 label"));
}
