// One registration function per subcommand; each lives in its own file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace opctl::cli {

// A subcommand's body: returns the process exit code.
using CommandAction = std::function<int()>;

void register_version(CLI::App& app, CommandAction& action);
void register_reconcile(CLI::App& app, CommandAction& action);
void register_diff(CLI::App& app, CommandAction& action);
void register_validate(CLI::App& app, CommandAction& action);
void register_status(CLI::App& app, CommandAction& action);
void register_tree(CLI::App& app, CommandAction& action);
void register_crds(CLI::App& app, CommandAction& action);
void register_backup(CLI::App& app, CommandAction& action);
void register_promote(CLI::App& app, CommandAction& action);
void register_install(CLI::App& app, CommandAction& action);
void register_fetch(CLI::App& app, CommandAction& action);
void register_completion(CLI::App& app, CommandAction& action);
void register_instance(CLI::App& app, CommandAction& action);
void register_history(CLI::App& app, CommandAction& action);
void register_rollback(CLI::App& app, CommandAction& action);
void register_cluster(CLI::App& app, CommandAction& action);

}  // namespace opctl::cli
