// Kind scopes: the built-in table, the kinds a set's own CRDs define, and
// resolving namespaces as the API server would (apply, validate and install
// all ask here).
#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "plan/kind_scopes.hpp"

using namespace opctl;
using model::Json;
using model::Object;

namespace {

Json gadget_crd(const std::string& scope) {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "gadgets.example.com"}}},
          {"spec",
           {{"group", "example.com"},
            {"scope", scope},
            {"names", {{"plural", "gadgets"}, {"kind", "Gadget"}}},
            {"versions", Json::array({{{"name", "v1"}}, {{"name", "v2"}}})}}}};
}

Object object(const std::string& api_version, const std::string& kind, const std::string& namespace_name = "",
              int line = 1) {
  Json metadata = {{"name", "x"}};
  if (!namespace_name.empty()) metadata["namespace"] = namespace_name;
  return Object(Json{{"apiVersion", api_version}, {"kind", kind}, {"metadata", metadata}},
                {"set.yaml", line});
}

// The cluster of these tests serves ConfigMaps (namespaced) and Namespaces (cluster-scoped) only.
std::optional<bool> small_cluster(const model::GroupVersionKind& gvk) {
  if (gvk.group.empty() && gvk.kind == "ConfigMap") return true;
  if (gvk.group.empty() && gvk.kind == "Namespace") return false;
  return std::nullopt;
}

}  // namespace

TEST_CASE("a CustomResourceDefinition is told by group and kind at any version", "[kind_scopes]") {
  CHECK(plan::is_crd({"apiextensions.k8s.io", "v1", "CustomResourceDefinition"}));
  CHECK(plan::is_crd({"apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition"}));
  CHECK_FALSE(plan::is_crd({"example.com", "v1", "CustomResourceDefinition"}));
  CHECK_FALSE(plan::is_crd({"apiextensions.k8s.io", "v1", "Gadget"}));
}

TEST_CASE("built-in kinds have the scopes the API server gives them", "[kind_scopes]") {
  CHECK(plan::builtin_namespaced({"apps", "Deployment"}) == true);
  CHECK(plan::builtin_namespaced({"", "Namespace"}) == false);
  CHECK(plan::builtin_namespaced({"apiextensions.k8s.io", "CustomResourceDefinition"}) == false);
  CHECK_FALSE(plan::builtin_namespaced({"example.com", "Gadget"}));
}

TEST_CASE("a CRD defines its kind with its scope and versions; any other shape defines none",
          "[kind_scopes]") {
  // Given a CRD body, we should read its kind, scope and versions; given a broken one, nothing, without
  // throwing.
  auto defined = plan::crd_kind(gadget_crd("Namespaced"));
  REQUIRE(defined);
  CHECK(defined->kind == plan::GroupKind{"example.com", "Gadget"});
  CHECK(defined->namespaced);
  CHECK(defined->versions == std::vector<std::string>{"v1", "v2"});
  CHECK(defined->defines({"example.com", "v2", "Gadget"}));
  CHECK_FALSE(defined->defines({"example.com", "v3", "Gadget"}));
  CHECK_FALSE(plan::crd_kind(gadget_crd("Cluster"))->namespaced);

  CHECK_FALSE(plan::crd_kind(Json{{"spec", "not an object"}}));
  CHECK_FALSE(plan::crd_kind(Json{{"spec", {{"names", {{"kind", 7}}}}}}));
  Json odd_versions = gadget_crd("Namespaced");
  odd_versions["spec"]["versions"] = Json::array({{{"name", 1}}, "v9", {{"name", "v1"}}});
  CHECK(plan::crd_kind(odd_versions)->versions == std::vector<std::string>{"v1"});

  // A version that is listed but not served is refused by the API server: it does not count.
  Json unserved = gadget_crd("Namespaced");
  unserved["spec"]["versions"][0]["served"] = false;
  CHECK(plan::crd_kind(unserved)->versions == std::vector<std::string>{"v2"});
  CHECK_FALSE(plan::crd_kind(unserved)->defines({"example.com", "v1", "Gadget"}));
}

TEST_CASE("the set's CRDs are found among its objects, other kinds ignored", "[kind_scopes]") {
  std::vector<Object> objects = {Object(gadget_crd("Cluster")), object("v1", "ConfigMap")};
  auto kinds = plan::crd_kinds(objects);
  REQUIRE(kinds.size() == 1);
  CHECK(kinds.begin()->first == plan::GroupKind{"example.com", "Gadget"});
  CHECK_FALSE(kinds.begin()->second.namespaced);
}

TEST_CASE("namespaces are defaulted for namespaced kinds and dropped for cluster-scoped ones",
          "[kind_scopes]") {
  // Given the cluster's scopes, we should default and drop namespaces as the API server would.
  std::vector<Object> objects = {object("v1", "ConfigMap"), object("v1", "ConfigMap", "kept"),
                                 object("v1", "Namespace", "dropped")};
  plan::resolve_scopes(small_cluster, objects, "shop");
  CHECK(objects[0].namespace_name() == "shop");
  CHECK(objects[1].namespace_name() == "kept");
  CHECK(objects[2].namespace_name().empty());
}

TEST_CASE("a kind only a CRD of the set defines is accepted at the CRD's versions, with its scope",
          "[kind_scopes]") {
  // Given a CRD in the set that the cluster does not serve yet, we should take its scope from the CRD.
  std::vector<Object> objects = {Object(gadget_crd("Namespaced")), object("example.com/v2", "Gadget")};
  auto served = [](const model::GroupVersionKind& gvk) -> std::optional<bool> {
    if (plan::is_crd(gvk)) return false;
    return small_cluster(gvk);
  };
  plan::resolve_scopes(served, objects, "shop");
  CHECK(objects[1].namespace_name() == "shop");
}

TEST_CASE("kinds neither the cluster nor a CRD of the set provides are all reported at once",
          "[kind_scopes]") {
  // Given a Gadget at a version its CRD lacks and an unknown Widget, we should name both, where they are.
  std::vector<Object> objects = {Object(gadget_crd("Namespaced")), object("example.com/v3", "Gadget", "", 4),
                                 object("example.com/v1", "Widget", "", 9)};
  auto served = [](const model::GroupVersionKind& gvk) -> std::optional<bool> {
    return plan::is_crd(gvk) ? std::optional<bool>(false) : std::nullopt;
  };
  try {
    plan::resolve_scopes(served, objects, "default");
    FAIL("unknown kinds were accepted");
  } catch (const InvalidInputError& error) {
    REQUIRE(error.problems().size() == 2);
    CHECK(error.problems()[0].file == "set.yaml");
    CHECK(error.problems()[0].field == "kind");
    CHECK(error.problems()[0].message == plan::unknown_kind_message({"example.com", "v3", "Gadget"}));
    CHECK(error.problems()[1].message ==
          "the cluster does not serve kind \"Widget\" in apiVersion \"example.com/v1\" and no "
          "CustomResourceDefinition in the manifests defines it");
  }
}
