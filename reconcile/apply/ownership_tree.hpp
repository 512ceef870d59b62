// The set as a tree, as `flux tree`, `argocd app get -o tree` and `kapp
// inspect --tree` show one: the members by wave and kind, each with its
// health, and under each object what it owns (ownerReferences), level by
// level: a Deployment's ReplicaSets and their Pods, a Cluster's Pods, claims,
// Services and Secrets. Pure: the objects are read elsewhere.
#pragma once

#include <string>
#include <vector>

#include "apply/health_rules.hpp"
#include "model/object.hpp"

namespace opctl::apply {

struct TreeNode {
  std::string api_version;
  std::string kind;
  std::string namespace_name;
  std::string name;
  // Missing: in the source but not on the cluster. Not in source: a member
  // the source no longer holds (a pruning pass deletes it).
  enum class Presence { live, missing, not_in_source } presence = Presence::live;
  HealthStatus health;
  std::vector<TreeNode> children;
};

struct TreeWave {
  long wave = 0;
  std::vector<TreeNode> objects;
};

// `members`: the live members of the set (whole, status included);
// `desired`: what the source holds; `owned`: live objects that may belong to
// a member (their ownerReferences decide). Waves ascending; in a wave, kinds
// in apply order, then namespace and name; children by kind, then name.
std::vector<TreeWave> ownership_tree(const std::vector<model::Json>& members,
                                     const std::vector<model::Object>& desired,
                                     const std::vector<model::Json>& owned);

const char* to_string(TreeNode::Presence presence);

// {"waves": [{"wave": 0, "objects": [{"apiVersion", "kind", "namespace",
// "name", "presence", "health": {"state", "message"}, "children": [...]}]}]}
model::Json tree_to_json(const std::vector<TreeWave>& waves);

}  // namespace opctl::apply
