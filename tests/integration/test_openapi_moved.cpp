// The OpenAPI v3 documents of the real server: a document whose hash moved
// between reading the index and reading the document (a CRD changed in
// between, as when a pass runs right after another installed CRDs) is read at
// its new hash instead of failing on the server's 301.
#include <catch2/catch.hpp>

#include "testenv.hpp"
#include "validate/schema_source.hpp"

using namespace opctl::integration;
using namespace std::chrono_literals;
namespace kube = opctl::kube;
namespace validate = opctl::validate;

namespace {

Json widget_crd(const std::string& group, const std::string& field) {
  Json spec = {{"type", "object"}, {"properties", {{field, {{"type", "string"}}}}}};
  return {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "widgets." + group}}},
      {"spec",
       {{"group", group},
        {"scope", "Namespaced"},
        {"names", {{"plural", "widgets"}, {"kind", "Widget"}}},
        {"versions",
         {{{"name", "v1"},
           {"served", true},
           {"storage", true},
           {"schema", {{"openAPIV3Schema", {{"type", "object"}, {"properties", {{"spec", spec}}}}}}}}}}}}};
}

// The serverRelativeURL of `group`/v1 in GET /openapi/v3, or empty.
std::string document_url(Client& admin, const std::string& group) {
  Json index = admin.must(request("GET", "/openapi/v3"));
  auto entry = index["paths"].find("apis/" + group + "/v1");
  if (entry == index["paths"].end()) return "";
  return entry->value("serverRelativeURL", "");
}

bool has_spec_field(const validate::OpenApiDocument& document, const std::string& group,
                    const std::string& field) {
  const Json* schema = document.schema_for({group, "v1", "Widget"});
  return schema != nullptr && (*schema)["properties"]["spec"]["properties"].contains(field);
}

}  // namespace

TEST_CASE("a document whose hash moved after the index was read is read at its new hash", "[openapi]") {
  Client admin(admin_config());
  std::string group = unique_name("oa") + ".opctl.test";
  admin.apply(widget_crd(group, "before"));
  std::string old_url;
  REQUIRE(eventually([&] { return !(old_url = document_url(admin, group)).empty(); }, 60s, 500ms));

  validate::ClusterSchemaSource source(*admin.transport, "");
  source.load_index();  // holds old_url

  admin.apply(widget_crd(group, "after"));
  REQUIRE(eventually([&] { return document_url(admin, group) != old_url; }, 60s, 500ms));
  // The fault is the server's own: the old URL is now redirected.
  CHECK(admin.transport->send(request("GET", old_url)).status == 301);

  auto set = source.load({group + "/v1"});
  REQUIRE(set.documents.contains(group + "/v1"));
  CHECK(has_spec_field(*set.documents.at(group + "/v1"), group, "after"));
  CHECK_FALSE(has_spec_field(*set.documents.at(group + "/v1"), group, "before"));

  admin.api.execute(admin.api.delete_request(
      admin.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition"), "", "widgets." + group, {}));
}
