// The status subresource of a custom resource: server-side apply and merge
// patch of status, which the main resource ignores, and dry runs of both.
#include <catch2/catch.hpp>

#include "testenv.hpp"

using namespace opctl::integration;
using namespace std::chrono_literals;
namespace kube = opctl::kube;

TEST_CASE("status is written through the status subresource, by apply and by merge patch", "[status]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  TestCrd crd(admin);
  Client client(admin_config());
  auto info = crd.resource(client);
  REQUIRE(info.has_subresource("status"));
  auto read = [&] { return client.must(client.api.get_request(info, ns.name(), "g")); };

  client.must(client.api.apply_request(
      info, opctl::model::Object(crd.object(ns.name(), "g", {{"spec", {{"size", 1}}}})), {}));
  auto status_apply =
      crd.object(ns.name(), "g", {{"status", {{"phase", "Ready"}, {"observedGeneration", 1}}}});
  auto applied = client.must(
      client.api.apply_status_request(info, opctl::model::Object(status_apply), {"opctl-status"}));
  CHECK(applied["status"]["phase"] == "Ready");

  Json live = read();
  CHECK(live["status"]["phase"] == "Ready");
  CHECK(live["spec"]["size"] == 1);
  CHECK(live["metadata"]["generation"] == 1);  // status writes do not bump the generation

  SECTION("the main resource ignores status") {
    client.must(client.api.apply_request(
        info,
        opctl::model::Object(
            crd.object(ns.name(), "g", {{"spec", {{"size", 2}}}, {"status", {{"phase", "Ignored"}}}})),
        {}));
    Json after = read();
    CHECK(after["spec"]["size"] == 2);
    CHECK(after["status"]["phase"] == "Ready");
  }
  SECTION("a merge patch of status changes status only") {
    auto patched = client.must(
        client.api.patch_status_request(info, ns.name(), "g", {{"status", {{"phase", "Degraded"}}}}));
    CHECK(patched["status"]["phase"] == "Degraded");
    Json after = read();
    CHECK(after["status"]["phase"] == "Degraded");
    CHECK(after["status"]["observedGeneration"] == 1);
    CHECK(after["metadata"]["generation"] == 1);
  }
  SECTION("dry runs of status apply and status patch change nothing") {
    std::string version = live["metadata"]["resourceVersion"];
    auto dry_apply = client.must(client.api.apply_status_request(
        info, opctl::model::Object(crd.object(ns.name(), "g", {{"status", {{"phase", "DryApplied"}}}})),
        {"opctl-status", false, true}));
    CHECK(dry_apply["status"]["phase"] == "DryApplied");
    kube::PatchOptions dry;
    dry.dry_run = true;
    auto dry_patch = client.must(
        client.api.patch_status_request(info, ns.name(), "g", {{"status", {{"phase", "DryPatched"}}}}, dry));
    CHECK(dry_patch["status"]["phase"] == "DryPatched");
    Json after = read();
    CHECK(after["status"]["phase"] == "Ready");
    CHECK(after["metadata"]["resourceVersion"] == version);
  }
}
