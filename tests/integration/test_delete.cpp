// DELETE with preconditions (a typed Conflict when they do not hold) and each
// propagation policy, with the garbage collector of kube-controller-manager.
#include <catch2/catch.hpp>

#include "testenv.hpp"

using namespace opctl::integration;
namespace kube = opctl::kube;

namespace {
kube::DeleteOptions propagation(const std::string& policy) {
  kube::DeleteOptions options;
  options.propagation_policy = policy;
  return options;
}
}  // namespace

TEST_CASE("delete preconditions: a uid or resourceVersion that does not match is a typed Conflict",
          "[delete]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  Json live = admin.apply(config_map(ns.name(), "cm", {{"k", "v"}}));
  auto info = admin.resource("v1", "ConfigMap");

  kube::DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "00000000-0000-0000-0000-000000000000";
  auto result = admin.api.execute(admin.api.delete_request(info, ns.name(), "cm", wrong_uid));
  CHECK(result.status.reason == kube::ApiReason::conflict);
  CHECK(result.status.code == 409);
  CHECK_THAT(result.status.message, Catch::Contains("UID in the precondition"));

  kube::DeleteOptions wrong_version;
  wrong_version.precondition_resource_version = "1";
  CHECK(admin.api.execute(admin.api.delete_request(info, ns.name(), "cm", wrong_version)).status.reason ==
        kube::ApiReason::conflict);
  CHECK(admin.get("v1", "ConfigMap", ns.name(), "cm"));

  kube::DeleteOptions right;
  right.precondition_uid = live["metadata"]["uid"];
  right.precondition_resource_version = live["metadata"]["resourceVersion"];
  CHECK(admin.api.execute(admin.api.delete_request(info, ns.name(), "cm", right)).ok());
  CHECK_FALSE(admin.get("v1", "ConfigMap", ns.name(), "cm"));
}

TEST_CASE("propagation policies: Background, Foreground and Orphan treat dependents as documented",
          "[delete]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  auto info = admin.resource("v1", "ConfigMap");
  Json owner = admin.apply(config_map(ns.name(), "owner", {{"k", "v"}}));
  Json dependent = config_map(ns.name(), "dependent", {{"k", "v"}});
  dependent["metadata"]["ownerReferences"] = {{{"apiVersion", "v1"},
                                               {"kind", "ConfigMap"},
                                               {"name", "owner"},
                                               {"uid", owner["metadata"]["uid"]},
                                               {"blockOwnerDeletion", true}}};
  admin.apply(dependent);
  auto gone = [&](const std::string& name) {
    return !admin.get("v1", "ConfigMap", ns.name(), name).has_value();
  };

  SECTION("Background: the owner goes at once, the garbage collector takes the dependent") {
    CHECK(admin.api.execute(admin.api.delete_request(info, ns.name(), "owner", propagation("Background")))
              .ok());
    CHECK(gone("owner"));
    CHECK(eventually([&] { return gone("dependent"); }));
  }
  SECTION("Foreground: the owner waits, marked, until its dependents are gone, then goes") {
    auto deleting =
        admin.api.execute(admin.api.delete_request(info, ns.name(), "owner", propagation("Foreground")));
    REQUIRE(deleting.ok());
    CHECK(deleting.object["metadata"].contains("deletionTimestamp"));
    CHECK(deleting.object["metadata"]["finalizers"] == Json::array({"foregroundDeletion"}));
    CHECK(eventually([&] { return gone("owner"); }));
    CHECK(gone("dependent"));
  }
  SECTION("Orphan: the dependent stays, without its owner reference") {
    CHECK(admin.api.execute(admin.api.delete_request(info, ns.name(), "owner", propagation("Orphan"))).ok());
    CHECK(eventually([&] { return gone("owner"); }));
    auto left = admin.get("v1", "ConfigMap", ns.name(), "dependent");
    REQUIRE(left);
    CHECK_FALSE((*left)["metadata"].contains("ownerReferences"));
  }
}
