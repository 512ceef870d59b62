#include "plan/applyset.hpp"

#include <fmt/format.h>

#include <sstream>

#include "model/base64.hpp"
#include "model/sha256.hpp"

namespace opctl::plan {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ','))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

}  // namespace

std::string ApplySetParent::id() const {
  std::string unencoded = fmt::format("{}.{}.Secret.", name, namespace_name);
  auto digest = model::sha256(unencoded);
  return "applyset-" +
         model::base64_url_encode_unpadded(
             std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size())) +
         "-v1";
}

ApplySetInventory ApplySetInventory::of(const std::vector<model::Object>& objects,
                                        const std::string& parent_namespace) {
  ApplySetInventory inventory;
  for (const auto& object : objects) {
    auto gvk = object.gvk();
    inventory.group_kinds.insert({gvk.group, gvk.kind});
    if (!object.namespace_name().empty() && object.namespace_name() != parent_namespace)
      inventory.namespaces.insert(object.namespace_name());
  }
  return inventory;
}

ApplySetInventory ApplySetInventory::from_parent(const model::Json& parent) {
  ApplySetInventory inventory;
  if (!parent.is_object() || !parent.contains("metadata")) return inventory;
  const auto annotations = parent["metadata"].value("annotations", model::Json::object());
  for (const auto& text : split_commas(annotations.value(k_applyset_group_kinds_annotation, "")))
    inventory.group_kinds.insert(GroupKind::parse(text));
  for (const auto& text : split_commas(annotations.value(k_applyset_namespaces_annotation, "")))
    inventory.namespaces.insert(text);
  return inventory;
}

ApplySetInventory ApplySetInventory::merged_with(const ApplySetInventory& other) const {
  ApplySetInventory merged = *this;
  merged.group_kinds.insert(other.group_kinds.begin(), other.group_kinds.end());
  merged.namespaces.insert(other.namespaces.begin(), other.namespaces.end());
  return merged;
}

model::Object applyset_parent_object(const ApplySetParent& parent, const ApplySetInventory& inventory,
                                     const std::string& tooling) {
  std::vector<std::string> kinds, namespaces(inventory.namespaces.begin(), inventory.namespaces.end());
  for (const auto& kind : inventory.group_kinds)
    kinds.push_back(kind.to_string());
  model::Json body = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"type", "Opaque"},
      {"metadata",
       {{"name", parent.name},
        {"namespace", parent.namespace_name},
        {"labels", {{k_applyset_id_label, parent.id()}, {"app.kubernetes.io/managed-by", "opctl"}}},
        {"annotations",
         {{k_applyset_tooling_annotation, tooling},
          {k_applyset_group_kinds_annotation, fmt::format("{}", fmt::join(kinds, ","))},
          {k_applyset_namespaces_annotation, fmt::format("{}", fmt::join(namespaces, ","))}}}}}};
  return model::Object(std::move(body));
}

void label_members(std::vector<model::Object>& objects, const ApplySetParent& parent) {
  std::string id = parent.id();
  for (auto& object : objects) {
    model::PackedAfter packed(object);
    object.set_label(k_applyset_part_of_label, id);
  }
}

}  // namespace opctl::plan
