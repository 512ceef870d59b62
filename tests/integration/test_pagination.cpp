// LIST with pages: more objects than one page, counted at the proxy, and
// label and field selectors.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <set>

#include "testenv.hpp"

using namespace opctl::integration;
namespace kube = opctl::kube;

namespace {

// SSA of `count` ConfigMaps cm-0000.., labelled half=a / half=b alternately.
void create_config_maps(Client& admin, const std::string& ns, int count) {
  auto info = admin.resource("v1", "ConfigMap");
  std::vector<kube::HttpRequest> requests;
  for (int i = 0; i < count; ++i) {
    Json object = config_map(ns, fmt::format("cm-{:04}", i), {{"index", std::to_string(i)}},
                             {{"half", i % 2 == 0 ? "a" : "b"}});
    requests.push_back(admin.api.apply_request(info, opctl::model::Object(object), {}));
  }
  for (const auto& result : admin.api.execute(requests))
    REQUIRE(result.ok());
}

}  // namespace

TEST_CASE("a list of 1,200 objects in pages of 500 takes three requests and misses none", "[list]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  create_config_maps(admin, ns.name(), 1200);
  Proxy proxy;
  Client client(proxy.config());
  auto info = client.resource("v1", "ConfigMap");
  const std::string key = "GET /api/v1/namespaces/" + ns.name() + "/configmaps";

  proxy.reset_counts();
  kube::ListOptions options;
  options.page_size = 500;
  auto listed = client.api.list(info, ns.name(), options);
  std::set<std::string> names;
  for (const auto& item : listed) {
    CHECK(item["kind"] == "ConfigMap");
    names.insert(item["metadata"]["name"]);
  }
  CHECK(names.size() == 1201);  // and kube-root-ca.crt
  CHECK(names.contains("cm-0000"));
  CHECK(names.contains("cm-1199"));
  CHECK(proxy.counts()["byPath"][key] == 3);

  // A label selector filters on the server, still in pages.
  {
    proxy.reset_counts();
    options.label_selector = "half=a";
    auto items = client.api.list(info, ns.name(), options);
    CHECK(items.size() == 600);
    for (const auto& item : items)
      CHECK(item["metadata"]["labels"]["half"] == "a");
    CHECK(proxy.counts()["byPath"][key] == 2);
  }
  // A field selector picks one object; both selectors together.
  {
    kube::ListOptions by_name;
    by_name.field_selector = "metadata.name=cm-0007";
    auto items = client.api.list(info, ns.name(), by_name);
    REQUIRE(items.size() == 1);
    CHECK(items[0]["data"]["index"] == "7");
    by_name.label_selector = "half=a";
    CHECK(client.api.list(info, ns.name(), by_name).empty());  // cm-0007 is half=b
    by_name.label_selector = "half in (b),!missing";
    CHECK(client.api.list(info, ns.name(), by_name).size() == 1);
  }
  // Page size 0 asks for everything at once.
  {
    proxy.reset_counts();
    kube::ListOptions unpaged;
    unpaged.page_size = 0;
    CHECK(client.api.list(info, ns.name(), unpaged).size() == 1201);
    CHECK(proxy.counts()["byPath"][key] == 1);
  }
}
