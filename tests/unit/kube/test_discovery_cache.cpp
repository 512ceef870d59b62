#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "fake_transport.hpp"
#include "kube/discovery_cache.hpp"
#include "kube/rest_mapper.hpp"

namespace fs = std::filesystem;
using opctl::kube::DiscoveryCache;
using opctl::kube::DiscoveryCacheOptions;
using opctl::kube::RestMapper;
using opctl::kube::testing::FakeTransport;
using opctl::model::GroupVersionKind;

namespace {

std::string discovery(const std::string& group, const std::string& kind, const std::string& resource) {
  return R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{"name":")" +
         group + R"("},"versions":[{"version":"v1","resources":[{"resource":")" + resource +
         R"(","responseKind":{"kind":")" + kind +
         R"("},"scope":"Namespaced","verbs":["get","list","patch"],"subresources":[{"subresource":"status"}]}]}]}]})";
}

struct CacheDir {
  fs::path path = fs::temp_directory_path() / ("opctl-discovery-" + std::to_string(::getpid()));
  CacheDir() { fs::remove_all(path); }
  ~CacheDir() { fs::remove_all(path); }
};

void serve(FakeTransport& server, const std::string& group_kind = "Widget") {
  server.responses.clear();
  server.answer("/api", 200, discovery("", "ConfigMap", "configmaps"));
  server.answer("/apis", 200, discovery("example.com", group_kind, group_kind + "s"));
}

const GroupVersionKind k_config_map{"", "v1", "ConfigMap"};
const GroupVersionKind k_widget{"example.com", "v1", "Widget"};
const GroupVersionKind k_gadget{"example.com", "v1", "Gadget"};

}  // namespace

TEST_CASE("a second mapper for the same server reads discovery from the disk cache", "[discovery]") {
  CacheDir dir;
  FakeTransport server;
  serve(server);
  RestMapper first(server, {dir.path.string(), "https://10.0.0.1:6443", std::chrono::seconds(600)});
  REQUIRE(first.find(k_widget));
  CHECK(server.requests.size() == 2);
  CHECK(fs::exists(dir.path / "10.0.0.1_6443" / "aggregated.json"));

  RestMapper second(server, {dir.path.string(), "https://10.0.0.1:6443", std::chrono::seconds(600)});
  auto found = second.find(k_config_map);
  REQUIRE(found);
  CHECK(found->resource == "configmaps");
  CHECK(found->has_subresource("status"));
  CHECK(server.requests.size() == 2);
  CHECK(second.server_loads() == 0);
}

TEST_CASE("the discovery cache is never shared between servers", "[discovery]") {
  CacheDir dir;
  FakeTransport server;
  serve(server);
  RestMapper(server, {dir.path.string(), "https://a.example:6443", std::chrono::seconds(600)}).all();
  RestMapper other(server, {dir.path.string(), "https://b.example:6443", std::chrono::seconds(600)});
  other.all();
  CHECK(other.server_loads() == 1);
  CHECK(fs::exists(dir.path / "b.example_6443" / "aggregated.json"));

  // Keys are lossy; the entry names its server, so a colliding one is a miss.
  DiscoveryCache colliding({dir.path.string(), "https://a.example_6443", std::chrono::seconds(600)});
  CHECK(colliding.file() == DiscoveryCache({dir.path.string(), "https://a.example:6443", {}}).file());
  CHECK_FALSE(colliding.read().has_value());
}

TEST_CASE("an expired or broken cache entry is fetched again and rewritten", "[discovery]") {
  CacheDir dir;
  FakeTransport server;
  serve(server);
  DiscoveryCacheOptions options{dir.path.string(), "https://10.0.0.1:6443", std::chrono::seconds(600)};
  RestMapper(server, options).all();
  fs::path file = DiscoveryCache(options).file();

  SECTION("older than the TTL") {
    fs::last_write_time(file, fs::file_time_type::clock::now() - std::chrono::minutes(11));
    RestMapper mapper(server, options);
    mapper.all();
    CHECK(mapper.server_loads() == 1);
    auto age = fs::file_time_type::clock::now() - fs::last_write_time(file);
    CHECK(age < std::chrono::minutes(1));
  }
  SECTION("not JSON") {
    std::ofstream(file) << "{ half a file";
    RestMapper mapper(server, options);
    REQUIRE(mapper.find(k_widget));
    CHECK(mapper.server_loads() == 1);
    CHECK(DiscoveryCache(options).read().has_value());
  }
  SECTION("JSON of the wrong shape") {
    std::ofstream(file) << R"({"server":"https://10.0.0.1:6443","api":5,"apis":[]})";
    RestMapper mapper(server, options);
    REQUIRE(mapper.find(k_widget));
    CHECK(mapper.server_loads() == 1);
  }
}

TEST_CASE("a kind missing from a fresh cache refreshes discovery once from the server", "[discovery]") {
  CacheDir dir;
  FakeTransport server;
  serve(server);
  DiscoveryCacheOptions options{dir.path.string(), "https://10.0.0.1:6443", std::chrono::seconds(600)};
  RestMapper(server, options).all();
  serve(server, "Gadget");  // a CRD appeared since the cache was written

  RestMapper mapper(server, options);
  auto gadget = mapper.find(k_gadget);
  REQUIRE(gadget);
  CHECK(gadget->resource == "Gadgets");
  CHECK(mapper.server_loads() == 1);
  // The refreshed documents replaced the cache entry.
  RestMapper later(server, options);
  CHECK(later.find(k_gadget));
  CHECK(later.server_loads() == 0);
  // A kind nobody serves costs one refresh per find, not a loop.
  CHECK_FALSE(mapper.find({"example.com", "v1", "Nothing"}));
  CHECK(mapper.server_loads() == 2);
}

TEST_CASE("without cache options a mapper never touches the disk; invalidate asks the server",
          "[discovery]") {
  FakeTransport server;
  serve(server);
  RestMapper mapper(server);
  CHECK(mapper.find(k_widget));
  CHECK(mapper.server_loads() == 1);
  mapper.invalidate();
  CHECK(mapper.find(k_widget));
  CHECK(mapper.server_loads() == 2);
  // A first load that came from the server is not repeated for an unknown kind.
  RestMapper fresh(server);
  CHECK_FALSE(fresh.find(k_gadget));
  CHECK(fresh.server_loads() == 1);
}

TEST_CASE("cache keys keep host, port and path, nothing else", "[discovery]") {
  CHECK(opctl::kube::server_cache_key("https://10.0.0.1:6443") == "10.0.0.1_6443");
  CHECK(opctl::kube::server_cache_key("https://rancher.example/k8s/clusters/c-1/") ==
        "rancher.example_k8s_clusters_c-1");
  CHECK(opctl::kube::server_cache_key("https://[::1]:6443") == "___1__6443");
}

TEST_CASE("the default cache directory follows XDG_CACHE_HOME, then HOME", "[discovery]") {
  std::string saved_xdg = std::getenv("XDG_CACHE_HOME") ? std::getenv("XDG_CACHE_HOME") : "";
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  CHECK(opctl::kube::default_discovery_cache_dir() == "/tmp/xdg-test/opctl/discovery");
  unsetenv("XDG_CACHE_HOME");
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  if (!home.empty()) CHECK(opctl::kube::default_discovery_cache_dir() == home + "/.cache/opctl/discovery");
  if (!saved_xdg.empty()) setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
}

TEST_CASE("a server URL's user information never reaches the cache's path or content", "[discovery]") {
  CacheDir dir;
  FakeTransport server;
  serve(server);
  RestMapper(server, {dir.path.string(), "https://admin:kube-pw@a.example:6443", std::chrono::seconds(600)})
      .all();
  DiscoveryCache cache({dir.path.string(), "https://admin:kube-pw@a.example:6443", {}});
  CHECK(cache.file() == dir.path / "a.example_6443" / "aggregated.json");
  std::ifstream in(cache.file());
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_FALSE(content.empty());
  CHECK(content.find("kube-pw") == std::string::npos);
}
