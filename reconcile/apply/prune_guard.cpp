#include "apply/prune_guard.hpp"

#include <fmt/format.h>

#include "apply/namespace_contents.hpp"
#include "plan/applyset.hpp"
#include "plan/kind_scopes.hpp"

namespace opctl::apply {
namespace {

// A PersistentVolumeClaim's volume, or a Cluster's (whose deletion deletes its instances' claims).
bool holds_data(const model::ObjectKey& key) {
  return (key.group.empty() && key.kind == "PersistentVolumeClaim") ||
         (key.group == "opctl.io" && key.kind == "Cluster");
}

using model::Json;

bool data_prune_allowed(const Json& live) {
  Json annotations = live.value("/metadata/annotations"_json_pointer, Json::object());
  return annotations.is_object() && annotations.value(k_prune_data_annotation, "") == "true";
}

// The resource a CRD serves, at its storage version (any served one will do for a LIST).
std::optional<kube::ResourceInfo> served_resource(const Json& crd) {
  const Json& spec = crd.value("spec", Json::object());
  std::string version;
  for (const auto& candidate : spec.value("versions", Json::array()))
    if (version.empty() || candidate.value("storage", false)) version = candidate.value("name", "");
  const Json& names = spec.value("names", Json::object());
  if (version.empty() || names.value("plural", "").empty()) return std::nullopt;
  kube::ResourceInfo info;
  info.gvk = {spec.value("group", ""), version, names.value("kind", "")};
  info.resource = names.value("plural", "");
  info.namespaced = spec.value("scope", "") == "Namespaced";
  return info;
}

}  // namespace

std::vector<std::string> foreign_custom_resources(kube::ApiClient& client, const Json& crd,
                                                  const std::string& applyset_id) {
  auto info = served_resource(crd);
  if (!info) return {};
  kube::ListOptions options;
  options.label_selector = fmt::format("{}!={}", plan::k_applyset_part_of_label, applyset_id);
  std::vector<std::string> found;
  try {
    for (const auto& item : client.list(*info, "", options)) {
      std::string namespace_name = item["metadata"].value("namespace", "");
      found.push_back(fmt::format("{} {}{}", info->gvk.kind,
                                  namespace_name.empty() ? "" : namespace_name + "/",
                                  item["metadata"].value("name", "")));
      if (found.size() >= 3) break;
    }
  } catch (const kube::ApiError& error) {
    if (error.status().reason == kube::ApiReason::not_found) return {};  // the kind is not served (any more)
    // What we may not list cannot be judged; count it as foreign to stay safe.
    found.push_back(info->gvk.kind + " ? (not allowed to list: " + error.status().describe() + ")");
  }
  return found;
}

std::string prune_refusal(kube::ApiClient& client, const plan::PruneCandidate& candidate,
                          const PruneGuardOptions& options) {
  if (candidate.kept) return "";
  if (holds_data(candidate.key) && !options.prune_data && !data_prune_allowed(candidate.live))
    return fmt::format(
        "it holds data ({}); use --prune-data, or annotate it {}: \"true\" to let a pass delete it",
        candidate.key.kind == "PersistentVolumeClaim" ? "its volume" : "its instances' volumes",
        k_prune_data_annotation);
  if (candidate.key.kind == "Namespace" && candidate.key.group.empty() && !options.prune_namespaces) {
    auto foreign = foreign_objects_in(client, candidate.key.name, options.applyset_id);
    if (!foreign.empty())
      return fmt::format("it still holds objects opctl does not manage ({}); use --prune-namespaces",
                         fmt::join(foreign, ", "));
  }
  if (plan::is_crd({candidate.key.group, "", candidate.key.kind}) && !options.prune_crds) {
    auto foreign = foreign_custom_resources(client, candidate.live, options.applyset_id);
    if (!foreign.empty())
      return fmt::format(
          "custom resources of it that are not in this set remain ({}); deleting the CRD would delete "
          "them: use --prune-crds",
          fmt::join(foreign, ", "));
  }
  return "";
}

}  // namespace opctl::apply
