// dryRun=All on every mutating verb: the server answers as if it had acted,
// and a read afterwards shows it did not.
#include <catch2/catch.hpp>

#include "testenv.hpp"

using namespace opctl::integration;
namespace kube = opctl::kube;

TEST_CASE("every mutating verb with dryRun=All changes nothing", "[dry-run]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  auto info = admin.resource("v1", "ConfigMap");
  Json live = admin.apply(config_map(ns.name(), "cm", {{"k", "original"}}));
  std::string version = live["metadata"]["resourceVersion"];
  auto unchanged = [&] {
    auto now = admin.get("v1", "ConfigMap", ns.name(), "cm");
    return now && (*now)["data"]["k"] == "original" && (*now)["metadata"]["resourceVersion"] == version;
  };

  SECTION("create") {
    auto created = admin.must(admin.api.create_request(
        info, opctl::model::Object(config_map(ns.name(), "new", {{"k", "v"}})), true));
    CHECK(created["metadata"]["name"] == "new");
    CHECK_FALSE(admin.get("v1", "ConfigMap", ns.name(), "new"));
  }
  SECTION("server-side apply") {
    auto applied = admin.must(admin.api.apply_request(
        info, opctl::model::Object(config_map(ns.name(), "cm", {{"k", "changed"}})), {"opctl", false, true}));
    CHECK(applied["data"]["k"] == "changed");
    CHECK(unchanged());
  }
  SECTION("merge patch") {
    kube::PatchOptions options;
    options.dry_run = true;
    auto patched =
        admin.must(admin.api.patch_request(info, ns.name(), "cm", {{"data", {{"k", "patched"}}}}, options));
    CHECK(patched["data"]["k"] == "patched");
    CHECK(unchanged());
  }
  SECTION("delete") {
    kube::DeleteOptions options;
    options.dry_run = true;
    CHECK(admin.api.execute(admin.api.delete_request(info, ns.name(), "cm", options)).ok());
    CHECK(unchanged());
  }
  SECTION("create of something that exists is still AlreadyExists") {
    auto result = admin.api.execute(admin.api.create_request(
        info, opctl::model::Object(config_map(ns.name(), "cm", {{"k", "v"}})), true));
    CHECK(result.status.reason == kube::ApiReason::already_exists);
    CHECK(unchanged());
  }
}
