#include "validate/crd_schemas.hpp"

#include "plan/kind_scopes.hpp"
#include "validate/json_fields.hpp"

namespace opctl::validate {
namespace {

using model::Json;

// CRD schemas leave out what every object has; the API server checks
// metadata itself.
Json with_object_fields(Json schema) {
  if (!schema.is_object()) return schema;
  if (!schema.contains("properties") || !schema["properties"].is_object())
    schema["properties"] = Json::object();
  auto& properties = schema["properties"];
  for (const char* field : {"apiVersion", "kind"})
    if (!properties.contains(field)) properties[field] = {{"type", "string"}};
  properties["metadata"] = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  return schema;
}

}  // namespace

CrdSchemas::CrdSchemas(const std::vector<model::Object>& objects, const std::string& origin)
    : document_(Json{{"components", {{"schemas", Json::object()}}}}, origin) {
  for (const auto& object : objects) {
    if (!plan::is_crd(object.gvk())) continue;
    model::PackedAfter packed(object);
    const Json* spec = field(object.body(), "spec");
    const Json* names = spec != nullptr ? field(*spec, "names") : nullptr;
    const Json* versions = spec != nullptr ? field(*spec, "versions") : nullptr;
    if (names == nullptr || versions == nullptr || !versions->is_array()) continue;
    for (const auto& version : *versions) {
      const Json* schema = field(version, "schema");
      const Json* open_api = schema != nullptr ? field(*schema, "openAPIV3Schema") : nullptr;
      if (open_api == nullptr || !open_api->is_object()) continue;
      model::GroupVersionKind gvk{text_field(*spec, "group"), text_field(version, "name"),
                                  text_field(*names, "kind")};
      schemas_[gvk] = with_object_fields(*open_api);
    }
  }
}

const Json* CrdSchemas::schema_for(const model::GroupVersionKind& gvk) const {
  auto found = schemas_.find(gvk);
  return found == schemas_.end() ? nullptr : &found->second;
}

}  // namespace opctl::validate
