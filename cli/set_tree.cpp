#include "set_tree.hpp"

#include <fmt/format.h>

#include <iostream>
#include <set>

#include "plan/prune_set.hpp"
#include "plan/selection.hpp"

namespace opctl::cli {
namespace {

using model::Json;

// The kinds controllers create for what they manage, opctl's own reconcilers
// included (a Cluster's Pods, claims, Services, Secrets, budgets, Lease and
// each instance's ServiceAccount, Role and RoleBinding, a Backup's CronJob and
// its Jobs): only these are listed for children, not every resource.
const std::set<std::pair<std::string, std::string>> k_child_kinds = {
    {"", "Pod"},
    {"", "PersistentVolumeClaim"},
    {"", "Service"},
    {"", "Secret"},
    {"", "ConfigMap"},
    {"", "ServiceAccount"},
    {"apps", "ReplicaSet"},
    {"apps", "StatefulSet"},
    {"batch", "Job"},
    {"batch", "CronJob"},
    {"policy", "PodDisruptionBudget"},
    {"coordination.k8s.io", "Lease"},
    {"rbac.authorization.k8s.io", "Role"},
    {"rbac.authorization.k8s.io", "RoleBinding"}};

bool is_child_kind(const model::GroupVersionKind& gvk) {
  return k_child_kinds.count({gvk.group, gvk.kind}) || gvk.group == "opctl.io";
}

// What the tree reads of a possible child: identity, owners, and what the
// health rules read (spec and status). A Secret's data never leaves here.
bool keep_owned(Json& item) {
  if (!item.contains("metadata") || !item["metadata"].contains("ownerReferences")) return false;
  item["metadata"].erase("managedFields");
  item.erase("data");
  item.erase("stringData");
  return true;
}

// Objects in the set's namespaces that name an owner: the children and
// grandchildren of members. A kind the caller may not list is skipped with a
// note, so the rest of the tree still shows.
std::vector<Json> list_owned(kube::ApiClient& client, const std::set<std::string>& namespaces, bool quiet) {
  kube::ListOptions options;
  options.keep_item = keep_owned;
  std::vector<kube::ListTarget> targets;
  std::set<std::pair<std::string, std::string>> listed;
  for (const auto& [gvk, info] : client.mapper().all()) {
    if (!info.namespaced || !is_child_kind(gvk) || !listed.insert({gvk.group, gvk.kind}).second) continue;
    for (const auto& namespace_name : namespaces)
      targets.push_back({info, namespace_name, options, ""});
  }
  std::vector<Json> owned;
  for (auto& outcome : client.list_all(targets)) {
    if (!outcome.ok()) {
      if (!quiet) std::cerr << "opctl: children not listed: " << outcome.status.message << "\n";
      continue;
    }
    std::move(outcome.items.begin(), outcome.items.end(), std::back_inserter(owned));
  }
  return owned;
}

struct Line {
  std::string label;
  const apply::TreeNode* node;
};

void collect_lines(const apply::TreeNode& node, const std::string& prefix, bool last,
                   std::vector<Line>& lines) {
  std::string identity =
      node.kind + " " + (node.namespace_name.empty() ? "" : node.namespace_name + "/") + node.name;
  lines.push_back({prefix + (last ? "└─ " : "├─ ") + identity, &node});
  std::string child_prefix = prefix + (last ? "   " : "│  ");
  for (std::size_t i = 0; i < node.children.size(); ++i)
    collect_lines(node.children[i], child_prefix, i + 1 == node.children.size(), lines);
}

// Display width of a label: the tree's box-drawing characters are 3 bytes each.
std::size_t width_of(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++width;
  return width;
}

std::string health_text(const apply::TreeNode& node, const Palette& palette) {
  std::string state = apply::to_string(node.health.state);
  std::string text = node.health.state == apply::HealthState::healthy       ? palette.green(state)
                     : node.health.state == apply::HealthState::progressing ? palette.yellow(state)
                                                                            : palette.red(state);
  if (node.presence != apply::TreeNode::Presence::live)
    text = palette.yellow(std::string(apply::to_string(node.presence)));
  if (!node.health.message.empty() && node.presence == apply::TreeNode::Presence::live)
    text += palette.dim(": " + node.health.message);
  return text;
}

}  // namespace

void print_tree(const std::vector<apply::TreeWave>& waves, const std::string& parent,
                const Palette& palette) {
  std::cout << palette.bold("ApplySet " + parent) << "\n";
  if (waves.empty()) std::cout << "  (no members, nothing in the source)\n";
  std::vector<std::vector<Line>> lines_by_wave;
  std::size_t width = 0;
  for (const auto& wave : waves) {
    auto& lines = lines_by_wave.emplace_back();
    for (std::size_t i = 0; i < wave.objects.size(); ++i)
      collect_lines(wave.objects[i], "", i + 1 == wave.objects.size(), lines);
    for (const auto& line : lines)
      width = std::max(width, width_of(line.label));
  }
  for (std::size_t w = 0; w < waves.size(); ++w) {
    std::cout << fmt::format("Wave {}\n", waves[w].wave);
    for (const auto& line : lines_by_wave[w])
      std::cout << line.label << std::string(width - width_of(line.label) + 2, ' ')
                << health_text(*line.node, palette) << "\n";
  }
}

std::vector<apply::TreeWave> read_set_tree(const SetTreeInputs& inputs) {
  auto inventory = plan::ApplySetInventory::of(inputs.desired, inputs.parent.namespace_name);
  if (inputs.parent_object)
    inventory = plan::ApplySetInventory::from_parent(*inputs.parent_object).merged_with(inventory);
  std::vector<Json> members;
  if (inputs.parent_object) {
    members = inputs.store.members(inventory, [](const Json&) { return true; });
    for (auto& member : members)
      if (member.contains("metadata")) member["metadata"].erase("managedFields");
  }
  // The inventory holds the desired objects' namespaces already (all but the parent's own).
  std::set<std::string> namespaces = inventory.namespaces;
  namespaces.insert(inputs.parent.namespace_name);
  auto owned = list_owned(inputs.client, namespaces, inputs.quiet);
  if (inputs.selector.empty()) return apply::ownership_tree(members, inputs.desired, owned);
  // -l: members by their labels in the source (by their live ones once they left it), and what those own.
  members = plan::selected_members(std::move(members), inputs.desired, inputs.selector);
  return apply::ownership_tree(members, plan::selected_objects(inputs.desired, inputs.selector), owned);
}

}  // namespace opctl::cli
