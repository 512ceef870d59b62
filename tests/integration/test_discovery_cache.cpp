// The discovery cache on disk with the real server, counted at the proxy: a
// second run asks nothing, a new kind refreshes once, servers never share.
#include <catch2/catch.hpp>
#include <filesystem>

#include "testenv.hpp"

using namespace opctl::integration;
using namespace std::chrono_literals;
namespace kube = opctl::kube;
namespace fs = std::filesystem;

namespace {

long long discovery_requests(const Json& counts) {
  long long total = 0;
  for (const char* path : {"GET /api", "GET /apis"})
    if (counts["byPath"].contains(path)) total += counts["byPath"][path].get<long long>();
  return total;
}

Json crd(const std::string& group) {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "sprockets." + group}}},
          {"spec",
           {{"group", group},
            {"scope", "Cluster"},
            {"names", {{"plural", "sprockets"}, {"kind", "Sprocket"}}},
            {"versions",
             {{{"name", "v1"},
               {"served", true},
               {"storage", true},
               {"schema",
                {{"openAPIV3Schema",
                  {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}};
}

}  // namespace

TEST_CASE("discovery is cached on disk per server and refreshed when a kind is missing", "[discovery]") {
  Client admin(admin_config());
  ScratchDir cache;
  Proxy proxy;
  auto transport = kube::make_curl_transport(proxy.config(), {});
  kube::DiscoveryCacheOptions options{cache.path.string(), proxy.config().server,
                                      kube::k_default_discovery_ttl};
  proxy.reset_counts();

  kube::RestMapper first(*transport, options);
  REQUIRE(first.find({"apps", "v1", "Deployment"}));
  CHECK(discovery_requests(proxy.counts()) == 2);
  CHECK(fs::exists(kube::DiscoveryCache(options).file()));

  kube::RestMapper second(*transport, options);
  auto deployments = second.find({"apps", "v1", "Deployment"});
  REQUIRE(deployments);
  CHECK(deployments->resource == "deployments");
  CHECK(deployments->namespaced);
  CHECK(discovery_requests(proxy.counts()) == 2);  // nothing asked: the cache answered

  std::string group = unique_name("dc") + ".opctl.test";
  admin.apply(crd(group));
  std::optional<kube::ResourceInfo> sprockets;
  // A miss refreshes from the server; the CRD may take a moment to be served.
  REQUIRE(eventually(
      [&] {
        return (sprockets = second.find({group, "v1", "Sprocket"})).has_value();
      },
      30s, 500ms));
  CHECK_FALSE(sprockets->namespaced);
  CHECK(second.server_loads() >= 1);

  kube::RestMapper third(*transport, options);
  long long before = discovery_requests(proxy.counts());
  CHECK(third.find({group, "v1", "Sprocket"}));
  CHECK(discovery_requests(proxy.counts()) == before);  // the refresh was written back

  // The apiserver itself is another server: its own entry, fetched afresh.
  Client direct(admin_config());
  kube::DiscoveryCacheOptions direct_options{cache.path.string(), direct.config.server,
                                             kube::k_default_discovery_ttl};
  kube::RestMapper other(*direct.transport, direct_options);
  other.all();
  CHECK(other.server_loads() == 1);
  CHECK(kube::DiscoveryCache(direct_options).file().parent_path() !=
        kube::DiscoveryCache(options).file().parent_path());

  admin.api.execute(admin.api.delete_request(
      admin.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition"), "", "sprockets." + group, {}));
}
