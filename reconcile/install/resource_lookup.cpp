#include "install/resource_lookup.hpp"

#include <cctype>
#include <map>
#include <utility>

#include "model/ascii_case.hpp"
#include "plan/kind_scopes.hpp"

namespace opctl::install {
namespace {

using model::Json;

bool is_vowel(char letter) {
  return std::string_view("aeiou").find(letter) != std::string_view::npos;
}

// The CRD's group and kind with the resource it is served as.
std::optional<std::pair<plan::GroupKind, ResourceRef>> crd_resource(const Json& crd) {
  auto defined = plan::crd_kind(crd);
  if (!defined) return std::nullopt;
  const Json& names = crd["spec"]["names"];
  std::string plural = names.value("plural", "");
  if (plural.empty()) plural = plural_of(defined->kind.kind);
  return std::pair{defined->kind, ResourceRef{defined->kind.group, plural, defined->namespaced}};
}

}  // namespace

std::string plural_of(const std::string& kind) {
  std::string lower = model::ascii_lower(kind);
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
    if (plan::is_crd(object.gvk())) crds.push_back(object.body());
  return crds;
}

ResourceLookup offline_lookup(const std::vector<Json>& crds) {
  std::map<plan::GroupKind, ResourceRef> defined;
  for (const auto& crd : crds)
    if (auto found = crd_resource(crd)) defined.insert(*found);
  return [defined = std::move(defined)](const model::GroupVersionKind& gvk) -> std::optional<ResourceRef> {
    plan::GroupKind key{gvk.group, gvk.kind};
    if (auto found = defined.find(key); found != defined.end()) return found->second;
    if (auto namespaced = plan::builtin_namespaced(key))
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

plan::ServedScope scopes_of(const ResourceLookup& lookup) {
  return [lookup](const model::GroupVersionKind& gvk) -> std::optional<bool> {
    auto found = lookup(gvk);
    return found ? std::optional<bool>(found->namespaced) : std::nullopt;
  };
}

}  // namespace opctl::install
