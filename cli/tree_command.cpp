// `opctl tree`: the set's members by wave and kind, their health, and under
// each what it owns, as `flux tree` and `kapp inspect --tree` show theirs.
#include <iostream>

#include "apply/applyset_store.hpp"
#include "build_info.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "config_values.hpp"
#include "desired_set.hpp"
#include "exit_codes.hpp"
#include "pass_progress.hpp"
#include "plan/applyset.hpp"
#include "set_tree.hpp"
#include "structured_output.hpp"
#include "terminal.hpp"

namespace opctl::cli {
namespace {

using model::Json;

struct TreeOptions {
  CommonOptions common;
  std::string output = "text";
};

int run_tree(TreeOptions& options) {
  finish_source_options(options.common);
  FetchProgress fetching(options.common);
  DesiredSet desired = load_desired_set(options.common);
  const auto& config = options.common.config;
  auto& client = *desired.connection.client;
  plan::ApplySetParent parent = applyset_parent_of(config);
  apply::ApplySetStore store(client, parent, std::string("opctl/v") + k_version);
  auto parent_object = store.read();
  auto waves = read_set_tree({client, store, parent, parent_object, desired.objects,
                              options.common.label_selector, options.common.quiet});
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
  add_progress_flag(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_tree(*options); }; });
}

}  // namespace opctl::cli
