// Discovery and REST mapping: which resource serves a kind, whether it is
// namespaced, which verbs and subresources it has.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/discovery_cache.hpp"
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
  explicit RestMapper(HttpTransport& transport) : transport_(transport), cache_({}) {}
  // With a disk cache: the first load reads a fresh cache entry for the
  // server instead of asking it; every load from the server rewrites it.
  RestMapper(HttpTransport& transport, DiscoveryCacheOptions cache)
      : transport_(transport), cache_(std::move(cache)) {}

  // The resource for a kind; refreshes discovery from the server once when
  // the kind is not known yet (a CRD created earlier in the same pass).
  // nullopt when the server still does not serve it.
  std::optional<ResourceInfo> find(const model::GroupVersionKind& gvk);
  // Forgets what is known, so the next find asks the server again (not the cache).
  void invalidate() {
    loaded_ = false;
    from_server_only_ = true;
  }
  // Every resource the server serves (loads discovery when needed).
  const std::map<model::GroupVersionKind, ResourceInfo>& all();
  // Discovery requests sent to the server so far (the cache saves them).
  int server_loads() const { return server_loads_; }

 private:
  void load(bool allow_cache);
  model::Json fetch_aggregated(const std::string& path);
  void add_resources(const model::Json& discovery);

  HttpTransport& transport_;
  DiscoveryCache cache_;
  std::map<model::GroupVersionKind, ResourceInfo> resources_;
  bool loaded_ = false;
  bool loaded_from_server_ = false;
  bool from_server_only_ = false;
  int server_loads_ = 0;
};

// A resource of the core group at v1 (Secret, Namespace, ...), for requests that
// must not wait on discovery.
ResourceInfo core_v1_resource(std::string kind, std::string plural, bool namespaced);
// The collection path of a resource, e.g. /apis/apps/v1/namespaces/shop/deployments.
std::string collection_path(const ResourceInfo& info, const std::string& namespace_name);
// The path of one object, e.g. /apis/apps/v1/namespaces/shop/deployments/web.
std::string object_path(const ResourceInfo& info, const std::string& namespace_name, const std::string& name);
// Percent-encodes a query or path component.
std::string url_escape(const std::string& text);

}  // namespace opctl::kube
