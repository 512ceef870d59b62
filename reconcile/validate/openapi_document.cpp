#include "validate/openapi_document.hpp"

#include <fmt/format.h>

#include "model/error.hpp"

namespace opctl::validate {
namespace {

using model::Json;

constexpr std::string_view k_ref_prefix = "#/components/schemas/";
constexpr const char* k_gvk_extension = "x-kubernetes-group-version-kind";

std::optional<model::GroupVersionKind> gvk_of(const Json& entry) {
  if (!entry.is_object() || !entry.contains("kind") || !entry.contains("version")) return std::nullopt;
  return model::GroupVersionKind{entry.value("group", ""), entry.value("version", ""),
                                 entry.value("kind", "")};
}

}  // namespace

OpenApiDocument::OpenApiDocument(Json document, const std::string& origin)
    : document_(std::move(document)), origin_(origin) {
  const Json* schemas = nullptr;
  if (document_.is_object() && document_.contains("components") && document_["components"].is_object() &&
      document_["components"].contains("schemas"))
    schemas = &document_["components"]["schemas"];
  if (schemas == nullptr || !schemas->is_object())
    throw Error(ErrorCategory::invalid_input,
                fmt::format("{}: not an OpenAPI v3 document (it has no components.schemas)", origin));
  index_kinds();
  index_scopes();
}

void OpenApiDocument::index_kinds() {
  for (const auto& [name, schema] : document_["components"]["schemas"].items()) {
    if (!schema.is_object() || !schema.contains(k_gvk_extension) || !schema[k_gvk_extension].is_array())
      continue;
    for (const auto& entry : schema[k_gvk_extension])
      if (auto gvk = gvk_of(entry)) kinds_.emplace(*gvk, &schema);
  }
}

// A create (post) on a collection path names the kind; the path says whether
// it is namespaced. Subresources (…/{name}/scale) are never collections.
void OpenApiDocument::index_scopes() {
  if (!document_.contains("paths") || !document_["paths"].is_object()) return;
  for (const auto& [path, operations] : document_["paths"].items()) {
    if (path.find("{name}") != std::string::npos || !operations.is_object() || !operations.contains("post"))
      continue;
    const Json& post = operations["post"];
    if (!post.is_object() || !post.contains(k_gvk_extension)) continue;
    if (auto gvk = gvk_of(post[k_gvk_extension]))
      scopes_[*gvk] = path.find("/namespaces/{namespace}/") != std::string::npos;
  }
}

const Json* OpenApiDocument::schema_for(const model::GroupVersionKind& gvk) const {
  auto found = kinds_.find(gvk);
  return found == kinds_.end() ? nullptr : found->second;
}

std::vector<std::string> OpenApiDocument::kind_names(const std::string& group_version) const {
  std::vector<std::string> names;
  for (const auto& entry : kinds_)
    if (entry.first.api_version() == group_version) names.push_back(entry.first.kind);
  return names;
}

const Json* OpenApiDocument::resolve(const std::string& ref) const {
  if (!ref.starts_with(k_ref_prefix)) return nullptr;
  const Json& schemas = document_.at("components").at("schemas");
  auto found = schemas.find(ref.substr(k_ref_prefix.size()));
  return found == schemas.end() ? nullptr : &*found;
}

std::optional<bool> OpenApiDocument::namespaced(const model::GroupVersionKind& gvk) const {
  auto found = scopes_.find(gvk);
  if (found == scopes_.end()) return std::nullopt;
  return found->second;
}

std::string openapi_path(const std::string& group_version) {
  return group_version.find('/') == std::string::npos ? "api/" + group_version : "apis/" + group_version;
}

std::string schema_file_name(const std::string& group_version) {
  std::string name = openapi_path(group_version);
  std::string file;
  for (char c : name)
    file += c == '/' ? std::string("__") : std::string(1, c);
  return file + ".json";
}

}  // namespace opctl::validate
