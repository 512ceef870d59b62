#include "apply/ownership_tree.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "plan/apply_order.hpp"
#include "plan/prune_set.hpp"

namespace opctl::apply {
namespace {

using model::Json;

std::string metadata_text(const Json& object, const char* field) {
  if (!object.contains("metadata") || !object["metadata"].is_object()) return "";
  return object["metadata"].value(field, "");
}

TreeNode node_of_live(const Json& live) {
  TreeNode node;
  node.api_version = live.value("apiVersion", "");
  node.kind = live.value("kind", "");
  node.namespace_name = metadata_text(live, "namespace");
  node.name = metadata_text(live, "name");
  node.health = assess_health(live);
  return node;
}

model::GroupVersionKind gvk_of_live(const Json& live) {
  return model::GroupVersionKind::from(live.value("apiVersion", ""), live.value("kind", ""));
}

// Owner uid -> the objects naming it in their ownerReferences.
using OwnedBy = std::map<std::string, std::vector<const Json*>>;

OwnedBy index_owners(const std::vector<Json>& owned) {
  OwnedBy index;
  for (const auto& object : owned) {
    if (!object.contains("metadata")) continue;
    for (const auto& reference : object["metadata"].value("ownerReferences", Json::array()))
      if (reference.is_object() && reference.contains("uid"))
        index[reference["uid"].get<std::string>()].push_back(&object);
  }
  return index;
}

bool child_order(const TreeNode& a, const TreeNode& b) {
  return std::tie(a.kind, a.namespace_name, a.name) < std::tie(b.kind, b.namespace_name, b.name);
}

// `seen` guards against an ownership cycle (the API server does not refuse
// one) and against an object reached twice through two owners.
void add_children(TreeNode& node, const std::string& uid, const OwnedBy& owners,
                  std::set<std::string>& seen) {
  auto found = owners.find(uid);
  if (found == owners.end()) return;
  for (const Json* child : found->second) {
    std::string child_uid = metadata_text(*child, "uid");
    if (!child_uid.empty() && !seen.insert(child_uid).second) continue;
    TreeNode child_node = node_of_live(*child);
    if (!child_uid.empty()) add_children(child_node, child_uid, owners, seen);
    node.children.push_back(std::move(child_node));
  }
  std::sort(node.children.begin(), node.children.end(), child_order);
}

struct Root {
  long wave;
  int rank;
  TreeNode node;
};

}  // namespace

const char* to_string(TreeNode::Presence presence) {
  switch (presence) {
    case TreeNode::Presence::live:
      return "live";
    case TreeNode::Presence::missing:
      return "missing";
    case TreeNode::Presence::not_in_source:
      return "not in source";
  }
  return "live";
}

std::vector<TreeWave> ownership_tree(const std::vector<Json>& members,
                                     const std::vector<model::Object>& desired,
                                     const std::vector<Json>& owned) {
  std::set<model::ObjectKey> in_source;
  for (const auto& object : desired)
    in_source.insert(object.key());
  OwnedBy owners = index_owners(owned);
  std::set<std::string> seen;
  std::set<model::ObjectKey> live_keys;
  std::vector<Root> roots;
  for (const auto& member : members) {
    auto key = plan::key_of_live(member);
    live_keys.insert(key);
    std::string uid = metadata_text(member, "uid");
    if (!uid.empty()) seen.insert(uid);
    TreeNode node = node_of_live(member);
    if (!in_source.count(key)) node.presence = TreeNode::Presence::not_in_source;
    roots.push_back({plan::wave_of_live(member), plan::kind_rank(gvk_of_live(member)), std::move(node)});
  }
  // Children once every member is known (`seen` holds them all): a member
  // owned by another member (rare, but legal) stays a root, not a child too.
  for (std::size_t i = 0; i < members.size(); ++i) {
    std::string uid = metadata_text(members[i], "uid");
    if (!uid.empty()) add_children(roots[i].node, uid, owners, seen);
  }
  for (const auto& object : desired) {
    if (live_keys.count(object.key())) continue;
    TreeNode node;
    node.api_version = object.api_version();
    node.kind = object.key().kind;
    node.namespace_name = object.namespace_name();
    node.name = object.name();
    node.presence = TreeNode::Presence::missing;
    node.health = {HealthState::progressing, "not on the cluster"};
    roots.push_back({plan::wave_of(object), plan::kind_rank(object.gvk()), std::move(node)});
  }
  std::sort(roots.begin(), roots.end(), [](const Root& a, const Root& b) {
    return std::tie(a.wave, a.rank, a.node.kind, a.node.namespace_name, a.node.name) <
           std::tie(b.wave, b.rank, b.node.kind, b.node.namespace_name, b.node.name);
  });
  std::vector<TreeWave> waves;
  for (auto& root : roots) {
    if (waves.empty() || waves.back().wave != root.wave) waves.push_back({root.wave, {}});
    waves.back().objects.push_back(std::move(root.node));
  }
  return waves;
}

namespace {

Json node_to_json(const TreeNode& node) {
  Json children = Json::array();
  for (const auto& child : node.children)
    children.push_back(node_to_json(child));
  return {{"apiVersion", node.api_version},
          {"kind", node.kind},
          {"namespace", node.namespace_name},
          {"name", node.name},
          {"presence", to_string(node.presence)},
          {"health", {{"state", to_string(node.health.state)}, {"message", node.health.message}}},
          {"children", std::move(children)}};
}

}  // namespace

Json tree_to_json(const std::vector<TreeWave>& waves) {
  Json out = Json::array();
  for (const auto& wave : waves) {
    Json objects = Json::array();
    for (const auto& object : wave.objects)
      objects.push_back(node_to_json(object));
    out.push_back({{"wave", wave.wave}, {"objects", std::move(objects)}});
  }
  return {{"waves", std::move(out)}};
}

}  // namespace opctl::apply
