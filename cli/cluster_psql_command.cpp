// opctl cluster psql CLUSTER [--replica] [-- PSQL-ARGS]: an interactive psql
// in the primary's Pod (or a replica's), through `kubectl exec`, as
// `kubectl cnpg psql` does: the session runs over the API server's exec
// stream, so it needs no route to the Pods and no password (psql connects
// over the instance's Unix socket as the postgres user).
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "cluster_commands.hpp"
#include "cluster_connection.hpp"
#include "cluster_objects.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_overview.hpp"
#include "model/error.hpp"

namespace opctl::cli {
namespace {

using model::Json;
namespace cluster = kinds::cluster;

struct ClusterPsqlOptions {
  CommonOptions common;
  std::string cluster;
  bool replica = false;
  std::string instance;
  std::string kubectl = "kubectl";
  std::vector<std::string> psql_arguments;
};

// The instance to connect to: the one asked for, the primary, or the Ready
// replica that replayed the most.
std::string psql_instance(const Json& overview, const ClusterPsqlOptions& options) {
  const Json& instances = overview["instances"];
  if (!options.instance.empty()) return instance_argument(options.cluster, options.instance, "--instance");
  if (!options.replica) {
    std::string primary = overview["cluster"].value("currentPrimary", "");
    if (primary.empty())
      throw ClusterError(fmt::format("Cluster {} has no primary yet (see opctl cluster status {})",
                                     options.cluster, options.cluster));
    return primary;
  }
  std::string best;
  std::uint64_t best_lag = 0;
  for (const auto& instance : instances) {
    if (instance.value("role", "") != "replica" || !instance.value("ready", false)) continue;
    std::uint64_t lag = instance.value("lagBytes", std::uint64_t{0});
    if (best.empty() || lag < best_lag) {
      best = instance.value("name", "");
      best_lag = lag;
    }
  }
  if (best.empty())
    throw ClusterError(fmt::format("Cluster {} has no Ready replica (see opctl cluster status {})",
                                   options.cluster, options.cluster));
  return best;
}

int run_cluster_psql(ClusterPsqlOptions& options) {
  ClusterConnection connection = connect(options.common);
  std::string namespace_name = connection.default_namespace(options.common);
  ClusterObjects objects = read_cluster_objects(*connection.client, namespace_name, options.cluster);
  kinds::cluster::OverviewInputs inputs{
      &objects.cluster, std::move(objects.children), {}, std::chrono::system_clock::now()};
  std::string pod = psql_instance(kinds::cluster::cluster_overview(inputs), options);

  std::vector<std::string> arguments = {options.kubectl};
  if (!options.common.kubeconfig.empty())
    arguments.insert(arguments.end(), {"--kubeconfig", options.common.kubeconfig});
  if (!options.common.context.empty())
    arguments.insert(arguments.end(), {"--context", options.common.context});
  // A terminal only when there is one: `opctl cluster psql db < script.sql` works too.
  arguments.insert(
      arguments.end(),
      {"exec", isatty(STDIN_FILENO) ? "-it" : "-i", "-n", namespace_name, pod, "-c", "postgres", "--", "psql",
       "--host", std::string(cluster::k_run_mount) + "/socket", "--username", "postgres"});
  arguments.insert(arguments.end(), options.psql_arguments.begin(), options.psql_arguments.end());
  if (!options.common.quiet)
    std::cerr << fmt::format("connecting to {}/{} through kubectl exec\n", namespace_name, pod);
  std::vector<char*> argv;
  for (auto& argument : arguments)
    argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  throw ClusterError(
      fmt::format("cannot run {}: {} (opctl cluster psql runs kubectl exec; install kubectl "
                  "or name it with --kubectl)",
                  options.kubectl, std::strerror(errno)));
}

}  // namespace

void register_cluster_psql(CLI::App& parent, CommandAction& action) {
  auto options = std::make_shared<ClusterPsqlOptions>();
  auto* command =
      parent.add_subcommand("psql", "Open psql in the primary's Pod (or a replica's), via kubectl exec");
  command->footer(
      "Runs kubectl exec into the instance's postgres container and psql there, connected over the "
      "instance's "
      "Unix socket as the postgres user (no password, nothing printed). Arguments after -- go to psql. "
      "Without a terminal on stdin, psql reads SQL from it.\n\n"
      "Exit codes: psql's (through kubectl); 2 invalid arguments; 3 the Cluster, its primary or a Ready "
      "replica was not found, or kubectl could not be run.\n\n"
      "Examples:\n"
      "  opctl cluster psql db -n shop\n"
      "  opctl cluster psql db -n shop --replica -- -d app -c 'SELECT pg_is_in_recovery()'\n"
      "  opctl cluster psql db -n shop -- -d app < migration.sql\n");
  command->add_option("CLUSTER", options->cluster, "The Cluster")->required();
  command->add_flag("--replica", options->replica, "Connect to the Ready replica that replayed the most WAL");
  command
      ->add_option("--instance", options->instance, "Connect to this instance: its Pod name (db-2) or serial")
      ->excludes("--replica");
  command->add_option("--kubectl", options->kubectl, "The kubectl to run")->capture_default_str();
  command->add_option("PSQL-ARGS", options->psql_arguments, "Arguments for psql, after --");
  add_cluster_flags(*command, options->common);
  add_output_flags(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_cluster_psql(*options); }; });
}

}  // namespace opctl::cli
