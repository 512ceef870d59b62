#include "kinds/owned_objects.hpp"

#include <fmt/format.h>

namespace opctl::kinds {

using model::Json;

namespace {

const Json k_empty_object = Json::object();

const Json& metadata_of(const Json& object) {
  return object.contains("metadata") && object["metadata"].is_object() ? object["metadata"] : k_empty_object;
}

}  // namespace

ParentRef ParentRef::of(const Json& live) {
  const Json& metadata = metadata_of(live);
  return {live.value("apiVersion", ""),
          live.value("kind", ""),
          metadata.value("namespace", ""),
          metadata.value("name", ""),
          metadata.value("uid", ""),
          metadata.contains("generation") && metadata["generation"].is_number_integer()
              ? metadata["generation"].get<long>()
              : 0};
}

PreparedChild prepare_child(const Json& child, const ParentRef& parent) {
  PreparedChild prepared;
  prepared.body = child;
  Json& metadata = prepared.body["metadata"];
  if (!metadata.is_object()) metadata = Json::object();
  std::string namespace_name = metadata.value("namespace", "");
  if (namespace_name.empty()) {
    metadata["namespace"] = parent.namespace_name;
  } else if (namespace_name != parent.namespace_name) {
    prepared.problem = fmt::format("a child must live in its parent's namespace {}, not {}",
                                   parent.namespace_name, namespace_name);
  }
  if (metadata.contains("annotations") && metadata["annotations"].is_object()) {
    Json& annotations = metadata["annotations"];
    prepared.create_only = annotations.value(k_create_only_annotation, "") == "true";
    annotations.erase(k_create_only_annotation);
    if (annotations.empty()) metadata.erase("annotations");
  }
  metadata["labels"][k_owner_uid_label] = parent.uid;
  metadata["ownerReferences"] = Json::array({{{"apiVersion", parent.api_version},
                                              {"kind", parent.kind},
                                              {"name", parent.name},
                                              {"uid", parent.uid},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}});
  return prepared;
}

bool controlled_by(const Json& object, const std::string& uid) {
  for (const auto& reference : metadata_of(object).value("ownerReferences", Json::array()))
    if (reference.is_object() && reference.value("controller", false) && reference.value("uid", "") == uid)
      return true;
  return false;
}

std::set<std::string> managed_finalizers(const Json& live, const std::string& manager) {
  std::set<std::string> finalizers;
  for (const auto& entry : metadata_of(live).value("managedFields", Json::array())) {
    if (!entry.is_object() || entry.value("manager", "") != manager ||
        entry.value("operation", "") != "Apply" || !entry.value("subresource", "").empty())
      continue;
    Json::json_pointer pointer("/fieldsV1/f:metadata/f:finalizers");
    if (!entry.contains(pointer) || !entry[pointer].is_object()) continue;
    for (const auto& [key, value] : entry[pointer].items()) {
      if (!key.starts_with("v:")) continue;
      Json name = Json::parse(key.substr(2), nullptr, false);
      if (name.is_string()) finalizers.insert(name.get<std::string>());
    }
  }
  return finalizers;
}

Json finalizer_body(const ParentRef& parent, const std::vector<std::string>& finalizers) {
  Json body = {
      {"apiVersion", parent.api_version},
      {"kind", parent.kind},
      {"metadata", {{"name", parent.name}, {"namespace", parent.namespace_name}, {"uid", parent.uid}}}};
  if (!finalizers.empty()) body["metadata"]["finalizers"] = finalizers;
  return body;
}

Json status_body(const ParentRef& parent, const Json& status) {
  return {{"apiVersion", parent.api_version},
          {"kind", parent.kind},
          {"metadata", {{"name", parent.name}, {"namespace", parent.namespace_name}, {"uid", parent.uid}}},
          {"status", status}};
}

kube::ApplyOptions controller_apply() {
  kube::ApplyOptions options;
  options.field_manager = k_controller_field_manager;
  options.force = true;
  return options;
}

}  // namespace opctl::kinds
