// `opctl tree`: the set's members by wave and kind, their health, and under
// each what it owns, as `flux tree` and `kapp inspect --tree` show theirs.
#include <fmt/format.h>

#include <iostream>
#include <set>

#include "apply/applyset_store.hpp"
#include "apply/ownership_tree.hpp"
#include "build_info.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "config_values.hpp"
#include "desired_set.hpp"
#include "exit_codes.hpp"
#include "plan/applyset.hpp"
#include "plan/prune_set.hpp"
#include "plan/selection.hpp"
#include "structured_output.hpp"
#include "terminal.hpp"

namespace opctl::cli {
namespace {

using model::Json;

struct TreeOptions {
  CommonOptions common;
  std::string output = "text";
};

// The kinds controllers create for what they manage, opctl's own reconcilers
// included (a Cluster's Pods, claims, Services, Secrets, budget and Lease, a
// Backup's Jobs): only these are listed for children, not every resource.
const std::set<std::pair<std::string, std::string>> k_child_kinds = {{"", "Pod"},
                                                                     {"", "PersistentVolumeClaim"},
                                                                     {"", "Service"},
                                                                     {"", "Secret"},
                                                                     {"", "ConfigMap"},
                                                                     {"apps", "ReplicaSet"},
                                                                     {"apps", "StatefulSet"},
                                                                     {"batch", "Job"},
                                                                     {"policy", "PodDisruptionBudget"},
                                                                     {"coordination.k8s.io", "Lease"}};

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
      if (!quiet) std::cerr << "opctl tree: children not listed: " << outcome.status.message << "\n";
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

// One column of health for the whole tree, so the waves line up.
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

int run_tree(TreeOptions& options) {
  finish_source_options(options.common);
  DesiredSet desired = load_desired_set(options.common);
  const auto& config = options.common.config;
  auto& client = *desired.connection.client;
  plan::ApplySetParent parent = applyset_parent_of(config);
  apply::ApplySetStore store(client, parent, std::string("opctl/v") + k_version);
  auto parent_object = store.read();
  auto inventory = plan::ApplySetInventory::of(desired.objects, parent.namespace_name);
  if (parent_object) inventory = plan::ApplySetInventory::from_parent(*parent_object).merged_with(inventory);
  std::vector<Json> members;
  if (parent_object) {
    members = store.members(inventory, [](const Json&) { return true; });
    for (auto& member : members)
      if (member.contains("metadata")) member["metadata"].erase("managedFields");
  }
  // -l: the members and desired objects it selects, and what those own.
  const model::LabelSelector& selector = options.common.label_selector;
  if (!selector.empty()) {
    members = plan::selected_members(std::move(members), desired.objects, selector);
    desired.objects = plan::selected_objects(desired.objects, selector);
  }
  // The inventory holds the desired objects' namespaces already (all but the parent's own).
  std::set<std::string> namespaces = inventory.namespaces;
  namespaces.insert(parent.namespace_name);
  auto owned = list_owned(client, namespaces, options.common.quiet);
  auto waves = apply::ownership_tree(members, desired.objects, owned);
  if (is_structured(options.output)) {
    Json out = apply::tree_to_json(waves);
    out["applySet"] = {{"parent", parent.qualified_name()}, {"id", parent.id()}};
    std::cout << render_structured(out, options.output);
    return k_exit_ok;
  }
  print_tree(waves, parent.qualified_name(), Palette{use_color(options.common.no_color)});
  return k_exit_ok;
}

}  // namespace

void register_tree(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<TreeOptions>();
  auto* command = app.add_subcommand(
      "tree", "Show the set's members by wave and kind with their health, and under each what it owns");
  command->footer(
      "Children are the objects whose ownerReferences name a member (a Deployment's ReplicaSets and their\n"
      "Pods, a Cluster's Pods, claims, Services and Secrets), read from the set's namespaces.\n"
      "\n"
      "Examples:\n"
      "  opctl tree --path manifests-example/\n"
      "  opctl tree -f opctl.yaml -o json\n");
  add_source_flags(*command, options->common);
  add_set_flags(*command, options->common);
  add_cluster_flags(*command, options->common);
  add_selector_flag(*command, options->common,
                    "draw only the members it selects (by their labels in the source; members no longer in "
                    "it by their live labels) and what they own");
  command->add_option("-o,--output", options->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_tree(*options); }; });
}

}  // namespace opctl::cli
