#include "kube/rest_mapper.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kube/api_error.hpp"

namespace opctl::kube {
namespace {
constexpr const char* k_aggregated_accept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
}

bool ResourceInfo::has_subresource(const std::string& name) const {
  return std::find(subresources.begin(), subresources.end(), name) != subresources.end();
}

std::optional<ResourceInfo> RestMapper::find(const model::GroupVersionKind& gvk) {
  if (!loaded_) load();
  if (auto found = resources_.find(gvk); found != resources_.end()) return found->second;
  load();
  if (auto found = resources_.find(gvk); found != resources_.end()) return found->second;
  return std::nullopt;
}

const std::map<model::GroupVersionKind, ResourceInfo>& RestMapper::all() {
  if (!loaded_) load();
  return resources_;
}

void RestMapper::load() {
  resources_.clear();
  load_aggregated("/api");
  load_aggregated("/apis");
  loaded_ = true;
}

// Aggregated discovery (KEP-3352): every group, version and resource in one
// response per root, instead of one request per group-version.
void RestMapper::load_aggregated(const std::string& path) {
  HttpRequest request;
  request.path = path;
  request.accept = k_aggregated_accept;
  HttpResponse response = transport_.send(request);
  ApiStatus status = decode_status(response, "GET " + path);
  if (!status.ok()) throw ApiError(status);
  auto body = nlohmann::json::parse(response.body, nullptr, false);
  if (!body.is_object() || body.value("kind", "") != "APIGroupDiscoveryList")
    throw ClusterError(fmt::format("GET {}: the server does not support aggregated discovery (Kubernetes >= 1.30 "
                                   "is required)",
                                   path));
  for (const auto& group : body.value("items", nlohmann::json::array())) {
    std::string group_name = group.contains("metadata") ? group["metadata"].value("name", "") : "";
    for (const auto& version : group.value("versions", nlohmann::json::array())) {
      std::string version_name = version.value("version", "");
      for (const auto& resource : version.value("resources", nlohmann::json::array())) {
        ResourceInfo info;
        std::string kind = resource.contains("responseKind") ? resource["responseKind"].value("kind", "") : "";
        info.gvk = {group_name, version_name, kind};
        info.resource = resource.value("resource", "");
        info.namespaced = resource.value("scope", "") == "Namespaced";
        for (const auto& verb : resource.value("verbs", nlohmann::json::array())) info.verbs.push_back(verb);
        for (const auto& sub : resource.value("subresources", nlohmann::json::array()))
          info.subresources.push_back(sub.value("subresource", ""));
        if (!kind.empty()) resources_[info.gvk] = std::move(info);
      }
    }
  }
}

std::string url_escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string collection_path(const ResourceInfo& info, const std::string& namespace_name) {
  std::string prefix = info.gvk.group.empty() ? "/api/" + info.gvk.version
                                              : fmt::format("/apis/{}/{}", info.gvk.group, info.gvk.version);
  if (info.namespaced && !namespace_name.empty()) prefix += "/namespaces/" + url_escape(namespace_name);
  return prefix + "/" + info.resource;
}

std::string object_path(const ResourceInfo& info, const std::string& namespace_name, const std::string& name) {
  return collection_path(info, namespace_name) + "/" + url_escape(name);
}

}  // namespace opctl::kube
