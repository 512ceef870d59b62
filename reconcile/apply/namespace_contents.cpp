#include "apply/namespace_contents.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "plan/applyset.hpp"

namespace opctl::apply {
namespace {

bool created_by_cluster(const std::string& kind, const model::Json& object) {
  static const std::set<std::string> k_generated_kinds = {"Event", "Endpoints", "EndpointSlice", "Lease"};
  if (k_generated_kinds.contains(kind)) return true;
  const auto& metadata = object.value("metadata", model::Json::object());
  if (!metadata.value("ownerReferences", model::Json::array()).empty()) return true;
  std::string name = metadata.value("name", "");
  return (kind == "ServiceAccount" && name == "default") ||
         (kind == "ConfigMap" && name == "kube-root-ca.crt");
}

}  // namespace

std::vector<std::string> foreign_objects_in(kube::ApiClient& client, const std::string& namespace_name,
                                            const std::string& applyset_id) {
  std::set<std::pair<std::string, std::string>> seen;  // (group, resource): one version each
  kube::ListOptions options;
  options.label_selector = fmt::format("{}!={}", plan::k_applyset_part_of_label, applyset_id);
  std::vector<kube::ListTarget> targets;
  for (const auto& [gvk, info] : client.mapper().all()) {
    if (!info.namespaced || std::find(info.verbs.begin(), info.verbs.end(), "list") == info.verbs.end())
      continue;
    if (seen.insert({gvk.group, info.resource}).second)
      targets.push_back({info, namespace_name, options, ""});
  }
  // Every resource is read (concurrently) and the first three found, in
  // discovery order, are named: the answer does not depend on timing.
  std::vector<std::string> found;
  auto outcomes = client.list_all(targets);
  for (std::size_t i = 0; i < outcomes.size() && found.size() < 3; ++i) {
    const auto& kind = targets[i].info.gvk.kind;
    if (!outcomes[i].ok()) {
      // A resource we may not list cannot be judged; count it as foreign to stay safe.
      found.push_back(kind + "/? (not allowed to list)");
      continue;
    }
    for (const auto& item : outcomes[i].items) {
      if (created_by_cluster(kind, item)) continue;
      found.push_back(kind + "/" + item["metadata"].value("name", ""));
      if (found.size() >= 3) break;
    }
  }
  return found;
}

}  // namespace opctl::apply
