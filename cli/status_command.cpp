#include <fmt/format.h>

#include <iostream>
#include <map>

#include "apply/applyset_store.hpp"
#include "apply/lease_lock.hpp"
#include "apply/prune_limits.hpp"
#include "apply/set_pin.hpp"
#include "apply/set_source.hpp"
#include "build_info.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "config_values.hpp"
#include "desired_set.hpp"
#include "diff_render.hpp"
#include "exit_codes.hpp"
#include "live_comparison.hpp"
#include "pass_progress.hpp"
#include "plan/apply_order.hpp"
#include "plan/pass_plan.hpp"
#include "plan/prune_set.hpp"
#include "plan/selection.hpp"
#include "plan_render.hpp"
#include "set_pin_plan.hpp"
#include "set_tree.hpp"
#include "structured_output.hpp"

namespace opctl::cli {
namespace {

using model::Json;

struct StatusOptions {
  CommonOptions common;
  std::string output = "text";
  bool tree = false;  // --tree: also what opctl tree shows
};

Json lease_status(kube::ApiClient& client, const config::RunConfig& config) {
  kube::ResourceInfo leases;
  leases.gvk = {"coordination.k8s.io", "v1", "Lease"};
  leases.resource = "leases";
  leases.namespaced = true;
  auto result =
      client.execute(client.get_request(leases, config.namespace_name, config::set_object_name(config.name)));
  if (!result.ok()) return {{"held", false}};
  const Json& spec = result.object.value("spec", Json::object());
  std::string holder = spec.value("holderIdentity", "");
  auto renewed = apply::parse_micro_time(spec.value("renewTime", ""));
  auto duration = std::chrono::seconds(spec.value("leaseDurationSeconds", 0));
  bool held = !holder.empty() && renewed && *renewed + duration > std::chrono::system_clock::now();
  return {{"held", held}, {"holder", holder}, {"renewTime", spec.value("renewTime", "")}};
}

Json ready_condition(const Json& live) {
  for (const auto& condition : live.value("status", Json::object()).value("conditions", Json::array()))
    if (condition.value("type", "") == "Ready")
      return {{"status", condition.value("status", "")},
              {"reason", condition.value("reason", "")},
              {"message", condition.value("message", "")}};
  return {{"status", "Unknown"}, {"reason", "NoReadyCondition"}, {"message", ""}};
}

int run_status(StatusOptions& options) {
  finish_source_options(options.common);
  FetchProgress fetching(options.common);
  // The set as its next pass would load it: at the pinned commit while a rollback pins it.
  PinPlan pin_plan = plan_pin(options.common, {});
  auto [revision, objects] = load_manifests(options.common);
  if (!pin_plan.planned && options.common.set_named) {  // named by an opctl.yaml in the source
    pin_plan = plan_pin(options.common, {});
    if (pin_plan.reload) std::tie(revision, objects) = load_manifests(options.common);
  }
  DesiredSet desired = connect_desired_set(options.common, std::move(revision), std::move(objects));
  // -l: the set as far as the selector selects it; `whole` still tells which members are desired.
  const model::LabelSelector& selector = options.common.label_selector;
  std::vector<model::Object> whole;
  if (!selector.empty()) {
    whole = std::move(desired.objects);
    desired.objects = plan::selected_objects(whole, selector);
  }
  const auto& config = options.common.config;
  auto& client = *desired.connection.client;
  plan::ApplySetParent parent = applyset_parent_of(config);
  apply::ApplySetStore store(client, parent, std::string("opctl/v") + k_version);
  auto parent_object = store.read();

  Json status = {{"applySet", {{"parent", parent.qualified_name()}, {"id", parent.id()}}},
                 {"lease", lease_status(client, config)}};
  auto pin = apply::SetPin::of(parent_object);
  status["pin"] = pin ? pin->to_json() : Json();
  if (!selector.empty()) status["selector"] = selector.to_string();
  if (pin && pin_plan.report.is_object()) status["pin"]["headCommit"] = pin_plan.head_commit;
  // Drift as `opctl diff` sees it (an autoscaler's replicas are not drift).
  apply::LiveStateOptions read;
  read.keep_custom_resource_status = true;  // their Ready condition, below
  LiveComparison comparison = compare_with_live(client, desired.objects, config, read);
  // The members a pruning pass would look at: the recorded kinds and the desired ones.
  std::vector<Json> members;
  if (parent_object) {
    auto annotations = (*parent_object)["metadata"].value("annotations", Json::object());
    status["lastRun"] = Json::parse(annotations.value(apply::k_last_run_annotation, "null"), nullptr, false);
    status["lastSuccessfulRun"] =
        Json::parse(annotations.value(apply::k_last_success_annotation, "null"), nullptr, false);
    auto inventory = plan::ApplySetInventory::from_parent(*parent_object)
                         .merged_with(plan::ApplySetInventory::of(desired.objects, parent.namespace_name));
    members = plan::selected_members(store.members(inventory), whole, selector);
    std::map<std::string, int> by_kind;
    for (const auto& member : members) {
      auto key = plan::key_of_live(member);
      by_kind[plan::GroupKind{key.group, key.kind}.to_string()] += 1;
    }
    status["inventory"] = by_kind;
    status["source"] = apply::recorded_set_source(*parent_object);
  } else {
    status["lastRun"] = nullptr;
    status["lastSuccessfulRun"] = nullptr;
    status["inventory"] = Json::object();
    status["source"] = "";
  }

  Json drift = Json::array();
  for (const auto& diff : comparison.result.diffs)
    if (diff.change != diff::Change::unchanged) drift.push_back(diff_header(diff));
  status["drift"] = drift;
  // What the next pass would do, decided as the pass decides it, from the state read above; prune
  // steps are listed even when the set does not prune (they are what --prune would delete).
  auto next_pass = plan::make_pass_plan(desired.objects, comparison.live, members,
                                        {kube::k_field_manager, ignore_rules_of(config), true, false, {}});
  status["nextPass"] = render_plan_json(next_pass);
  status["nextPass"]["prunes"] = options.common.prune;
  // Whether a pruning pass would be refused (an empty source, a mass deletion), as the pass decides it.
  try {
    apply::check_prune_volume({parent.qualified_name(), desired.objects.size(), members.size(),
                               plan::pruned_names(next_pass.steps)},
                              prune_limits_of(options.common));
    status["nextPass"]["pruneRefused"] = nullptr;
  } catch (const InvalidInputError& refusal) {
    status["nextPass"]["pruneRefused"] = refusal.problems().front().message;
  }
  Json custom = Json::array();
  for (const auto& object : desired.objects) {
    if (!plan::is_custom_kind(object.gvk())) continue;
    const Json* current = comparison.live.find(object.key());
    Json entry = {{"object", object.api_version() + " " + object.key().kind + " " +
                                 (object.namespace_name().empty() ? "" : object.namespace_name() + "/") +
                                 object.name()},
                  {"ready", current ? ready_condition(*current) : Json{{"status", "Missing"}}}};
    // A Cluster's instances: role, position and lag, as their managers report them.
    if (current && current->contains("status") && (*current)["status"].contains("instanceStates"))
      entry["instances"] = (*current)["status"]["instanceStates"];
    custom.push_back(std::move(entry));
  }
  status["customResources"] = custom;
  std::vector<apply::TreeWave> tree;
  if (options.tree) {
    tree = read_set_tree({client, store, parent, parent_object, selector.empty() ? desired.objects : whole,
                          selector, options.common.quiet});
    status["tree"] = apply::tree_to_json(tree);
  }

  if (is_structured(options.output)) {
    std::cout << render_structured(status, options.output);
    return k_exit_ok;
  }
  std::cout << fmt::format("ApplySet {} ({})\n", status["applySet"]["parent"].get<std::string>(),
                           parent.id());
  if (!status["source"].get<std::string>().empty())
    std::cout << fmt::format("Source: {}\n", status["source"].get<std::string>());
  if (!selector.empty())
    std::cout << fmt::format("Selector: {} (inventory, drift and plan of the selected objects only)\n",
                             selector.to_string());
  const Json& lease = status["lease"];
  std::cout << (lease["held"].get<bool>()
                    ? fmt::format("Lease: held by {} (renewed {})\n", lease["holder"].get<std::string>(),
                                  lease["renewTime"].get<std::string>())
                    : std::string("Lease: free\n"));
  if (pin)
    std::cout << fmt::format(
        "Pinned: at {} (rollback to {} by {} at {}{}); {}\n", pin->commit.substr(0, 7), pin->revision,
        pin->by, pin->time, pin->until_new_commit ? ", until a new commit" : "",
        "opctl rollback --unpin follows " + (pin->ref.empty() ? "its ref" : pin->ref) + " again");
  if (status["lastRun"].is_object()) {
    const Json& run = status["lastRun"];
    std::cout << fmt::format(
        "Last run: {} at {} from {} ({} created, {} configured, {} unchanged, {} pruned, {} failed)\n",
        run.value("result", ""), run.value("time", ""), run.value("revision", ""), run.value("created", 0),
        run.value("configured", 0), run.value("unchanged", 0), run.value("pruned", 0),
        run.value("failed", 0));
  } else {
    std::cout << "Last run: none recorded\n";
  }
  if (const Json& success = status["lastSuccessfulRun"]; success.is_object() && success != status["lastRun"])
    std::cout << fmt::format("Last successful run: at {} from {}\n", success.value("time", ""),
                             success.value("revision", ""));
  int total = 0;
  for (const auto& [kind, count] : status["inventory"].items())
    total += count.get<int>();
  std::cout << fmt::format("Inventory: {} objects\n", total);
  for (const auto& [kind, count] : status["inventory"].items())
    std::cout << fmt::format("  {:<40} {}\n", kind, count.get<int>());
  std::cout << fmt::format("Drift: {}\n",
                           drift.empty() ? "none, in sync" : fmt::format("{} objects", drift.size()));
  for (const auto& line : drift)
    std::cout << "  " << line.get<std::string>() << "\n";
  std::cout << render_plan_text(next_pass, options.common.prune);
  if (const Json& refused = status["nextPass"]["pruneRefused"]; refused.is_string())
    std::cout << "Prune: " << refused.get<std::string>() << "\n";
  if (!custom.empty()) {
    std::cout << "Custom resources:\n";
    for (const auto& entry : custom) {
      const Json& ready = entry["ready"];
      std::cout << fmt::format(
          "  {}: Ready={}{}\n", entry["object"].get<std::string>(), ready.value("status", ""),
          ready.value("reason", "").empty() ? "" : " (" + ready.value("reason", "") + ")");
      for (const auto& instance : entry.value("instances", Json::array())) {
        std::string position = instance.value("currentLsn", instance.value("replayLsn", ""));
        std::string lag = instance.contains("lagBytes")
                              ? fmt::format(", lag {} bytes", instance["lagBytes"].get<long long>())
                              : "";
        std::string error =
            instance.value("error", "").empty() ? "" : ", error: " + instance.value("error", "");
        std::cout << fmt::format(
            "    {:<20} {:<8} {:<9} timeline {:<3} lsn {}{}{}\n", instance.value("name", ""),
            instance.value("role", "unknown"), instance.value("ready", false) ? "Ready" : "NotReady",
            instance.value("timeline", "-"), position.empty() ? "-" : position, lag, error);
      }
    }
  }
  if (options.tree) print_tree(tree, parent.qualified_name(), Palette{use_color(options.common.no_color)});
  return k_exit_ok;
}

}  // namespace

void register_status(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<StatusOptions>();
  auto* command = app.add_subcommand(
      "status",
      "Show the inventory, drift, the next pass's plan, the last run, the lease and custom resources' Ready");
  command->footer(
      "Examples:\n"
      "  opctl status --path manifests-example/\n"
      "  opctl status -f opctl.yaml -o json\n"
      "  opctl status --path manifests-example/ --tree\n"
      "  opctl status -f opctl.yaml -l app=web\n");
  add_source_flags(*command, options->common);
  add_set_flags(*command, options->common);
  add_cluster_flags(*command, options->common);
  add_prune_guard_flags(*command, options->common);
  add_selector_flag(*command, options->common,
                    "show only the objects it selects (by their labels in the source; members no longer "
                    "in it by their live labels)");
  command->add_option("-o,--output", options->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  command->add_flag("--tree", options->tree,
                    "Also show what opctl tree shows: the members by wave with their health, and under each "
                    "what it owns (-o json|yaml: under \"tree\")");
  add_output_flags(*command, options->common);
  add_progress_flag(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_status(*options); }; });
}

}  // namespace opctl::cli
