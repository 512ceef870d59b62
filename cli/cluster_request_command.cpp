// opctl cluster restart CLUSTER [INSTANCE] and opctl cluster reload CLUSTER:
// requests recorded as annotations on the Cluster, as `opctl promote` does,
// so the decisions stay where the safety rules are.
//   restart:           opctl.io/restarted-at, part of the Pod template's hash:
//                      the next passes roll every instance (replicas first,
//                      the primary by primaryUpdateMethod), as kubectl rollout restart.
//   restart INSTANCE:  opctl.io/restart-instance: that Pod is recreated once
//                      (the primary in place, holding its Lease).
//   reload:            opctl.io/reload: each instance manager rewrites its
//                      configuration files and reloads PostgreSQL at its next
//                      step, without waiting for a pass.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cluster_commands.hpp"
#include "cluster_connection.hpp"
#include "cluster_objects.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/kind_time.hpp"
#include "kube/api_error.hpp"
#include "resource_lookup.hpp"

namespace opctl::cli {
namespace {

using model::Json;
namespace cluster = kinds::cluster;

struct ClusterRequestOptions {
  CommonOptions common;
  std::string cluster;
  std::string instance;  // restart only; empty: every instance
};

void annotate_cluster(ClusterConnection& connection, const std::string& namespace_name,
                      const std::string& name, const char* annotation, const std::string& value) {
  auto& client = *connection.client;
  auto clusters = resource_or_fail(client, {cluster::k_group, cluster::k_version, "Cluster"});
  get_or_fail(client, clusters, namespace_name, name);  // a clear "not found" before any write
  Json patch = {{"metadata", {{"annotations", {{annotation, value}}}}}};
  kube::PatchOptions patch_options;
  patch_options.field_manager = "opctl-cluster";
  auto result = client.execute(client.patch_request(clusters, namespace_name, name, patch, patch_options));
  if (!result.ok()) throw kube::ApiError(result.status);
}

// Sub-second, so that two requests in the same second are two requests.
std::string request_nonce() {
  auto now = std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y%m%dT%H%M%S}Z", now);
}

int run_cluster_restart(ClusterRequestOptions& options) {
  std::string instance;
  if (!options.instance.empty()) instance = instance_argument(options.cluster, options.instance, "INSTANCE");
  ClusterConnection connection = connect(options.common);
  std::string namespace_name = connection.default_namespace(options.common);
  if (instance.empty()) {
    annotate_cluster(connection, namespace_name, options.cluster, cluster::k_restarted_at_annotation,
                     kinds::format_time(std::chrono::system_clock::now()));
    if (!options.common.quiet)
      std::cout << fmt::format(
          "requested a rolling restart of Cluster {}/{}: the next opctl reconcile passes recreate the "
          "replicas "
          "one at a time, then the primary (by switchover or in place, as spec.primaryUpdateMethod says)\n",
          namespace_name, options.cluster);
    return k_exit_ok;
  }
  annotate_cluster(connection, namespace_name, options.cluster, cluster::k_restart_instance_annotation,
                   instance + "@" + request_nonce());
  if (!options.common.quiet)
    std::cout << fmt::format(
        "requested a restart of {} in Cluster {}/{}: the next opctl reconcile pass recreates its Pod on the "
        "same volume (the primary in place, keeping its Lease)\n",
        instance, namespace_name, options.cluster);
  return k_exit_ok;
}

int run_cluster_reload(ClusterRequestOptions& options) {
  ClusterConnection connection = connect(options.common);
  std::string namespace_name = connection.default_namespace(options.common);
  annotate_cluster(connection, namespace_name, options.cluster, cluster::k_reload_annotation,
                   request_nonce());
  if (!options.common.quiet)
    std::cout << fmt::format(
        "requested a reload of Cluster {}/{}: each instance manager rewrites its configuration files and "
        "reloads PostgreSQL within seconds (no pass needed); parameters that need a restart show in "
        "opctl cluster status\n",
        namespace_name, options.cluster);
  return k_exit_ok;
}

const char* k_cluster_request_exit_codes =
    "Exit codes: 0 the request was recorded, 2 invalid arguments, 3 the Cluster was not found or the API "
    "server refused the change.\n\n";

}  // namespace

void register_cluster_restart(CLI::App& parent, CommandAction& action) {
  auto options = std::make_shared<ClusterRequestOptions>();
  auto* command =
      parent.add_subcommand("restart", "Restart a Cluster's instances (rolling), or one instance");
  command->footer(
      std::string("Without INSTANCE: records opctl.io/restarted-at on the Cluster; the Pod template changes, "
                  "so the next reconcile passes recreate the replicas one per pass, highest serial first, "
                  "then the primary by switchover (or in place with primaryUpdateMethod: restart; with "
                  "primaryUpdateStrategy: supervised it waits for opctl promote). With INSTANCE: records "
                  "opctl.io/restart-instance; the next pass recreates that Pod once on the same volume (the "
                  "primary in place). Data stays on the volumes either way.\n\n") +
      k_cluster_request_exit_codes +
      "Examples:\n"
      "  opctl cluster restart db -n shop\n"
      "  opctl cluster restart db 2 -n shop && opctl reconcile --path manifests-example/\n");
  command->add_option("CLUSTER", options->cluster, "The Cluster")->required();
  command->add_option("INSTANCE", options->instance, "Only this instance: its Pod name (db-2) or serial (2)");
  add_cluster_flags(*command, options->common);
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_cluster_restart(*options); }; });
}

void register_cluster_reload(CLI::App& parent, CommandAction& action) {
  auto options = std::make_shared<ClusterRequestOptions>();
  auto* command = parent.add_subcommand("reload", "Make every instance reload its PostgreSQL configuration");
  command->footer(
      std::string("Records opctl.io/reload on the Cluster; every instance manager that sees a new "
                  "value rewrites postgresql.conf and pg_hba.conf from the spec and reloads "
                  "PostgreSQL (pg_reload_conf), which also rereads its certificate files. It does "
                  "not wait for a reconcile pass.\n\n") +
      k_cluster_request_exit_codes + "Examples:\n  opctl cluster reload db -n shop\n");
  command->add_option("CLUSTER", options->cluster, "The Cluster")->required();
  add_cluster_flags(*command, options->common);
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_cluster_reload(*options); }; });
}

}  // namespace opctl::cli
