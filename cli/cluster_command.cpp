// opctl cluster: the group under which the day-two commands for one
// PostgreSQL Cluster live (status, restart, reload, psql, report).
#include "cluster_commands.hpp"
#include "commands.hpp"

namespace opctl::cli {

void register_cluster(CLI::App& app, CommandAction& action) {
  auto* command = app.add_subcommand("cluster", "Day-two commands for one PostgreSQL Cluster");
  command->require_subcommand(1);
  command->footer(
      "Subcommands: status (instances, replication, backups, certificates), restart (rolling, or one "
      "instance), reload (configuration), psql (a session in the primary or a replica), report (a redacted "
      "support bundle). opctl promote CLUSTER INSTANCE asks for a switchover. See opctl-cluster(1).");
  register_cluster_status(*command, action);
  register_cluster_restart(*command, action);
  register_cluster_reload(*command, action);
  register_cluster_psql(*command, action);
  register_cluster_report(*command, action);
}

}  // namespace opctl::cli
