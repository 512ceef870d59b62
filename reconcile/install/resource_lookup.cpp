#include "install/resource_lookup.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <utility>

#include "model/error.hpp"
#include "validate/kind_scopes.hpp"

namespace opctl::install {
namespace {

using model::Json;

bool is_vowel(char letter) {
  return std::string_view("aeiou").find(letter) != std::string_view::npos;
}

// The CRD's group and kind with the resource it is served as.
std::optional<std::pair<validate::GroupKind, ResourceRef>> crd_resource(const Json& crd) {
  auto scope = validate::crd_scope(crd);
  if (!scope) return std::nullopt;
  const Json& names = crd["spec"]["names"];
  std::string plural = names.value("plural", "");
  if (plural.empty()) plural = plural_of(scope->first.second);
  return std::pair{scope->first, ResourceRef{scope->first.first, plural, scope->second}};
}

}  // namespace

std::string plural_of(const std::string& kind) {
  std::string lower;
  for (char letter : kind)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(letter)));
  if (lower.empty() || lower == "endpoints") return lower;
  if (lower.ends_with("s") || lower.ends_with("x") || lower.ends_with("ch") || lower.ends_with("sh"))
    return lower + "es";
  if (lower.size() > 1 && lower.back() == 'y' && !is_vowel(lower[lower.size() - 2]))
    return lower.substr(0, lower.size() - 1) + "ies";
  return lower + "s";
}

std::vector<Json> crds_in(const std::vector<model::Object>& objects) {
  std::vector<Json> crds;
  for (const auto& object : objects)
    if (object.gvk().group == "apiextensions.k8s.io" && object.kind() == "CustomResourceDefinition")
      crds.push_back(object.body());
  return crds;
}

ResourceLookup offline_lookup(const std::vector<Json>& crds) {
  std::map<validate::GroupKind, ResourceRef> defined;
  for (const auto& crd : crds)
    if (auto found = crd_resource(crd)) defined.insert(*found);
  return [defined = std::move(defined)](const model::GroupVersionKind& gvk) -> std::optional<ResourceRef> {
    validate::GroupKind key{gvk.group, gvk.kind};
    if (auto found = defined.find(key); found != defined.end()) return found->second;
    if (auto namespaced = validate::builtin_namespaced(key))
      return ResourceRef{gvk.group, plural_of(gvk.kind), *namespaced};
    return std::nullopt;
  };
}

ResourceLookup first_of(std::vector<ResourceLookup> lookups) {
  return [lookups = std::move(lookups)](const model::GroupVersionKind& gvk) -> std::optional<ResourceRef> {
    for (const auto& lookup : lookups)
      if (auto found = lookup(gvk)) return found;
    return std::nullopt;
  };
}

void resolve_namespaces(std::vector<model::Object>& objects, const ResourceLookup& lookup,
                        const std::string& default_namespace) {
  std::vector<Problem> problems;
  for (auto& object : objects) {
    auto found = lookup(object.gvk());
    if (!found) {
      problems.push_back(
          {object.location().file, object.line_of("/kind"), "kind",
           fmt::format("kind \"{}\" in apiVersion \"{}\" is not built in, no "
                       "CustomResourceDefinition in the manifests defines it and the cluster does "
                       "not serve it",
                       object.kind(), object.api_version())});
      continue;
    }
    if (found->namespaced && object.namespace_name().empty()) object.set_namespace(default_namespace);
    if (!found->namespaced && !object.namespace_name().empty()) object.body()["metadata"].erase("namespace");
  }
  if (!problems.empty()) throw InvalidInputError(std::move(problems));
}

}  // namespace opctl::install
