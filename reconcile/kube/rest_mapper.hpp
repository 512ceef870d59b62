// Discovery and REST mapping: which resource serves a kind, whether it is
// namespaced, which verbs and subresources it has.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/http_transport.hpp"
#include "model/object.hpp"

namespace opctl::kube {

struct ResourceInfo {
  model::GroupVersionKind gvk;
  std::string resource;  // plural, e.g. "deployments"
  bool namespaced = false;
  std::vector<std::string> verbs;
  std::vector<std::string> subresources;

  bool has_subresource(const std::string& name) const;
};

class RestMapper {
 public:
  explicit RestMapper(HttpTransport& transport) : transport_(transport) {}

  // The resource for a kind; refreshes discovery once when the kind is not
  // known yet (a CRD created earlier in the same pass). nullopt when the
  // server still does not serve it.
  std::optional<ResourceInfo> find(const model::GroupVersionKind& gvk);
  // Forgets what is known, so the next find asks the server again.
  void invalidate() { loaded_ = false; }
  // Every resource the server serves (loads discovery when needed).
  const std::map<model::GroupVersionKind, ResourceInfo>& all();

 private:
  void load();
  void load_aggregated(const std::string& path);

  HttpTransport& transport_;
  std::map<model::GroupVersionKind, ResourceInfo> resources_;
  bool loaded_ = false;
};

// The collection path of a resource, e.g. /apis/apps/v1/namespaces/shop/deployments.
std::string collection_path(const ResourceInfo& info, const std::string& namespace_name);
// The path of one object, e.g. /apis/apps/v1/namespaces/shop/deployments/web.
std::string object_path(const ResourceInfo& info, const std::string& namespace_name, const std::string& name);
// Percent-encodes a query or path component.
std::string url_escape(const std::string& text);

}  // namespace opctl::kube
