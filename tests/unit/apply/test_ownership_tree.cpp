#include <catch2/catch.hpp>

#include "apply/ownership_tree.hpp"

using opctl::apply::HealthState;
using opctl::apply::ownership_tree;
using opctl::apply::TreeNode;
using opctl::model::Json;
using opctl::model::Object;

namespace {

Json live(const std::string& api_version, const std::string& kind, const std::string& name,
          const std::string& uid, const std::string& owner_uid = "") {
  Json object = {{"apiVersion", api_version},
                 {"kind", kind},
                 {"metadata", {{"name", name}, {"namespace", "shop"}, {"uid", uid}}}};
  if (!owner_uid.empty())
    object["metadata"]["ownerReferences"] =
        Json::array({{{"uid", owner_uid}, {"kind", "Owner"}, {"name", "x"}}});
  return object;
}

Object desired(const std::string& api_version, const std::string& kind, const std::string& name) {
  return Object(Json{
      {"apiVersion", api_version}, {"kind", kind}, {"metadata", {{"name", name}, {"namespace", "shop"}}}});
}

}  // namespace

TEST_CASE("members come by wave, then kind in apply order, with what they own under them", "[tree]") {
  Json web = live("apps/v1", "Deployment", "web", "u-web");
  web["spec"] = {{"replicas", 1}};
  web["status"] = {{"observedGeneration", 1},
                   {"replicas", 1},
                   {"updatedReplicas", 1},
                   {"availableReplicas", 1},
                   {"readyReplicas", 1}};
  web["metadata"]["generation"] = 1;
  Json settings = live("v1", "ConfigMap", "settings", "u-settings");
  Json late = live("v1", "ConfigMap", "late", "u-late");
  late["metadata"]["annotations"] = {{"opctl.io/wave", "5"}};
  Json replica_set = live("apps/v1", "ReplicaSet", "web-1", "u-rs", "u-web");
  Json pod_b = live("v1", "Pod", "web-1-b", "u-pb", "u-rs");
  Json pod_a = live("v1", "Pod", "web-1-a", "u-pa", "u-rs");
  pod_a["status"] = {{"phase", "Failed"}, {"message", "OOMKilled"}};
  Json stranger = live("v1", "Pod", "other", "u-other", "u-unknown");

  auto waves =
      ownership_tree({web, late, settings},
                     {desired("apps/v1", "Deployment", "web"), desired("v1", "ConfigMap", "settings"),
                      desired("v1", "ConfigMap", "late"), desired("v1", "Service", "web")},
                     {pod_b, stranger, replica_set, pod_a});
  REQUIRE(waves.size() == 2);
  CHECK(waves[0].wave == 0);
  REQUIRE(waves[0].objects.size() == 3);
  // ConfigMap (config) before Service before Deployment (workloads), as a pass applies them.
  CHECK(waves[0].objects[0].kind == "ConfigMap");
  CHECK(waves[0].objects[1].kind == "Service");
  CHECK(waves[0].objects[1].presence == TreeNode::Presence::missing);
  const TreeNode& deployment = waves[0].objects[2];
  CHECK(deployment.kind == "Deployment");
  CHECK(deployment.health.state == HealthState::healthy);
  REQUIRE(deployment.children.size() == 1);
  const TreeNode& set = deployment.children[0];
  CHECK(set.name == "web-1");
  REQUIRE(set.children.size() == 2);
  CHECK(set.children[0].name == "web-1-a");
  CHECK(set.children[0].health.state == HealthState::failed);
  CHECK(set.children[1].name == "web-1-b");
  CHECK(waves[1].wave == 5);
  CHECK(waves[1].objects.at(0).name == "late");

  Json json = opctl::apply::tree_to_json(waves);
  CHECK(json["waves"][0]["objects"][2]["children"][0]["children"][0]["health"]["state"] == "failed");
  CHECK(json["waves"][0]["objects"][1]["presence"] == "missing");
}

TEST_CASE("a member the source no longer holds is marked; an ownership cycle ends", "[tree]") {
  Json gone = live("v1", "ConfigMap", "gone", "u-gone");
  Json a = live("v1", "Secret", "a", "u-a", "u-gone");
  Json b = live("v1", "Secret", "b", "u-b", "u-a");
  Json loop = live("v1", "Secret", "loop", "u-loop", "u-b");
  a["metadata"]["ownerReferences"].push_back({{"uid", "u-loop"}});  // a -> b -> loop -> a
  auto waves = ownership_tree({gone}, {}, {a, b, loop});
  REQUIRE(waves.size() == 1);
  const TreeNode& root = waves[0].objects.at(0);
  CHECK(root.presence == TreeNode::Presence::not_in_source);
  REQUIRE(root.children.size() == 1);
  REQUIRE(root.children[0].children.size() == 1);
  REQUIRE(root.children[0].children[0].children.size() == 1);
  CHECK(root.children[0].children[0].children[0].name == "loop");
  CHECK(root.children[0].children[0].children[0].children.empty());
}

TEST_CASE("a member owned by another member stays a root", "[tree]") {
  Json owner = live("v1", "ConfigMap", "owner", "u-owner");
  Json owned = live("v1", "Secret", "owned", "u-owned", "u-owner");
  auto waves = ownership_tree({owner, owned}, {}, {owned});
  REQUIRE(waves.size() == 1);
  CHECK(waves[0].objects.size() == 2);
  for (const auto& node : waves[0].objects)
    CHECK(node.children.empty());
}
