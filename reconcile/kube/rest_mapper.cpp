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
  bool just_asked_server = false;
  if (!loaded_) {
    load(true);
    just_asked_server = loaded_from_server_;
  }
  if (auto found = resources_.find(gvk); found != resources_.end()) return found->second;
  if (just_asked_server) return std::nullopt;
  load(false);
  if (auto found = resources_.find(gvk); found != resources_.end()) return found->second;
  return std::nullopt;
}

const std::map<model::GroupVersionKind, ResourceInfo>& RestMapper::all() {
  if (!loaded_) load(true);
  return resources_;
}

void RestMapper::load(bool allow_cache) {
  std::optional<DiscoveryDocuments> documents;
  if (allow_cache && !from_server_only_) documents = cache_.read();
  loaded_from_server_ = !documents;
  if (!documents) {
    documents = DiscoveryDocuments{fetch_aggregated("/api"), fetch_aggregated("/apis")};
    ++server_loads_;
    cache_.write(*documents);
  }
  resources_.clear();
  add_resources(documents->core);
  add_resources(documents->groups);
  loaded_ = true;
  from_server_only_ = false;
}

// Aggregated discovery (KEP-3352): every group, version and resource in one
// response per root, instead of one request per group-version.
model::Json RestMapper::fetch_aggregated(const std::string& path) {
  HttpRequest request;
  request.path = path;
  request.accept = k_aggregated_accept;
  HttpResponse response = transport_.send(request);
  ApiStatus status = decode_status(response, "GET " + path);
  if (!status.ok()) throw ApiError(status);
  auto body = nlohmann::json::parse(response.body, nullptr, false);
  if (!body.is_object() || body.value("kind", "") != "APIGroupDiscoveryList")
    throw ClusterError(
        fmt::format("GET {}: the server does not support aggregated discovery (Kubernetes >= 1.30 "
                    "is required)",
                    path));
  return body;
}

void RestMapper::add_resources(const model::Json& discovery) {
  for (const auto& group : discovery.value("items", nlohmann::json::array())) {
    std::string group_name = group.contains("metadata") ? group["metadata"].value("name", "") : "";
    for (const auto& version : group.value("versions", nlohmann::json::array())) {
      std::string version_name = version.value("version", "");
      for (const auto& resource : version.value("resources", nlohmann::json::array())) {
        ResourceInfo info;
        std::string kind =
            resource.contains("responseKind") ? resource["responseKind"].value("kind", "") : "";
        info.gvk = {group_name, version_name, kind};
        info.resource = resource.value("resource", "");
        info.namespaced = resource.value("scope", "") == "Namespaced";
        for (const auto& verb : resource.value("verbs", nlohmann::json::array()))
          info.verbs.push_back(verb);
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

ResourceInfo core_v1_resource(std::string kind, std::string plural, bool namespaced) {
  ResourceInfo info;
  info.gvk = {"", "v1", std::move(kind)};
  info.resource = std::move(plural);
  info.namespaced = namespaced;
  return info;
}

std::string collection_path(const ResourceInfo& info, const std::string& namespace_name) {
  std::string prefix = info.gvk.group.empty() ? "/api/" + info.gvk.version
                                              : fmt::format("/apis/{}/{}", info.gvk.group, info.gvk.version);
  if (info.namespaced && !namespace_name.empty()) prefix += "/namespaces/" + url_escape(namespace_name);
  return prefix + "/" + info.resource;
}

std::string object_path(const ResourceInfo& info, const std::string& namespace_name,
                        const std::string& name) {
  return collection_path(info, namespace_name) + "/" + url_escape(name);
}

}  // namespace opctl::kube
