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

Json parse_without_descriptions(const std::string& text) {
  using Event = Json::parse_event_t;
  // For each open object or array by depth: whether it is an array, and the
  // key it is the value of ("" at the top and in an array). The parser gives
  // no end event for a container inside a dropped value, so this is indexed
  // by depth rather than kept as a stack.
  std::vector<bool> is_array(1, false);
  std::vector<std::string> under(1), last_key(1);
  auto on_event = [&](int depth, Event event, Json& parsed) {
    auto level = static_cast<std::size_t>(depth);
    if (event == Event::object_start || event == Event::array_start) {
      if (is_array.size() < level + 2) {
        is_array.resize(level + 2);
        under.resize(level + 2);
        last_key.resize(level + 2);
      }
      is_array[level + 1] = event == Event::array_start;
      under[level + 1] = level == 0 || is_array[level] ? "" : last_key[level];
      return true;
    }
    if (event != Event::key) return true;
    last_key[level] = parsed.get<std::string>();
    return last_key[level] != "description" || under[level] == "properties";
  };
  return Json::parse(text, on_event, false);
}

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
  // Nothing reads the paths once their scopes are indexed, and without the
  // descriptions they are most of a document (core/v1: 350 of 470 KB).
  document_.erase("paths");
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
