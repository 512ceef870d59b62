// `opctl cluster SUBCOMMAND`: the day-two commands for one PostgreSQL
// Cluster (kubectl cnpg's), one file each.
#pragma once

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "model/object.hpp"

namespace opctl::cli {

void register_cluster_status(CLI::App& parent, CommandAction& action);
void register_cluster_restart(CLI::App& parent, CommandAction& action);
void register_cluster_reload(CLI::App& parent, CommandAction& action);
void register_cluster_psql(CLI::App& parent, CommandAction& action);
void register_cluster_report(CLI::App& parent, CommandAction& action);

// What `opctl cluster status` prints for a cluster_overview() document.
std::string render_cluster_status(const model::Json& overview);

}  // namespace opctl::cli
