// opctl promote CLUSTER INSTANCE: ask for a switchover to INSTANCE (or, when
// INSTANCE is the primary, a restart in place during a supervised update).
// It only records the request on the Cluster (the opctl.io/promote
// annotation, with a timestamp so the same instance can be asked for again);
// the next reconcile pass checks it against the Cluster's state and acts, so
// the decision stays in one place and follows the same safety rules.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cluster_connection.hpp"
#include "cluster_objects.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kube/api_error.hpp"
#include "resource_lookup.hpp"

namespace opctl::cli {
namespace {

using model::Json;
namespace cluster = kinds::cluster;

struct PromoteOptions {
  CommonOptions common;
  std::string cluster;
  std::string instance;
};

std::string utc_stamp() {
  auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y%m%dT%H%M%SZ}", now);
}

int run_promote(PromoteOptions& options) {
  std::string instance = instance_argument(options.cluster, options.instance, "INSTANCE");
  ClusterConnection connection = connect(options.common);
  auto& client = *connection.client;
  std::string namespace_name = connection.default_namespace(options.common);
  auto clusters = resource_or_fail(client, {cluster::k_group, cluster::k_version, "Cluster"});
  Json live = get_or_fail(client, clusters, namespace_name, options.cluster);
  std::string primary = live.value("status", Json::object()).value("currentPrimary", "");

  Json patch = {
      {"metadata", {{"annotations", {{cluster::k_promote_annotation, instance + "@" + utc_stamp()}}}}}};
  kube::PatchOptions patch_options;
  patch_options.field_manager = "opctl-promote";
  auto result =
      client.execute(client.patch_request(clusters, namespace_name, options.cluster, patch, patch_options));
  if (!result.ok()) throw kube::ApiError(result.status);
  if (!options.common.quiet) {
    std::string action = instance == primary ? "a restart of the primary " + instance + " in place"
                                             : "a switchover to " + instance;
    std::cout << fmt::format(
        "requested {} on Cluster {}/{}; the next opctl reconcile pass acts on it if {} is Ready (see the "
        "Cluster's "
        "conditions)\n",
        action, namespace_name, options.cluster, instance);
  }
  return k_exit_ok;
}

}  // namespace

void register_promote(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<PromoteOptions>();
  auto* command = app.add_subcommand("promote", "Ask a Cluster to make INSTANCE its primary (switchover)");
  command->footer(
      "Records the request on the Cluster (annotation opctl.io/promote); the next reconcile pass switches "
      "over when "
      "INSTANCE is a Ready instance, or restarts the primary in place when INSTANCE is the primary. During a "
      "rolling update with primaryUpdateStrategy: supervised this is the go-ahead for the primary.\n\n"
      "Exit codes: 0 the request was recorded, 2 invalid arguments, 3 the Cluster was not found or the API "
      "server "
      "refused the change.\n\n"
      "Examples:\n"
      "  opctl promote db db-2 -n shop && opctl reconcile --path manifests-example/\n"
      "  opctl promote db 2 -n shop\n");
  command->add_option("CLUSTER", options->cluster, "The Cluster")->required();
  command
      ->add_option("INSTANCE", options->instance,
                   "The instance to promote: its Pod name (db-2) or serial (2)")
      ->required();
  add_cluster_flags(*command, options->common);
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_promote(*options); }; });
}

}  // namespace opctl::cli
