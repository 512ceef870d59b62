// opctl: a GitOps reconciler for Kubernetes. This file wires the subcommands
// and turns errors into messages and exit codes; the work is in reconcile/.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "build_info.hpp"
#include "commands.hpp"
#include "error_output.hpp"
#include "exit_codes.hpp"
#include "model/error.hpp"
#include "suggestions.hpp"

namespace {

// After a parse error, suggest the closest flag or subcommand to each word
// the parser did not know.
void print_suggestion(const CLI::App& app, int argc, char** argv) {
  const CLI::App* scope = &app;
  for (const auto* command : app.get_subcommands())
    scope = command;
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (i == 1 && scope == &app && !word.starts_with("-")) {
      if (std::string best = opctl::cli::closest_name(app, word); !best.empty())
        std::cerr << "unknown command " << word << ", did you mean " << best << "?\n";
      continue;
    }
    if (!word.starts_with("--")) continue;
    word = word.substr(0, word.find('='));
    bool known = false;
    for (const auto* option : scope->get_options())
      for (const auto& name : option->get_lnames())
        known = known || word == "--" + name;
    if (known) continue;
    if (std::string best = opctl::cli::closest_name(app, word); !best.empty())
      std::cerr << "unknown flag " << word << ", did you mean " << best << "?\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace opctl;
  // A fixed threshold for blocks glibc maps on their own. Left dynamic, it
  // rises to the largest block freed, so the LIST page bodies and file texts
  // (hundreds of KB each) that follow come from the heap and stay there as
  // fragments: 7 MiB of a no-op pass's peak at 20,000 objects.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  CLI::App app{"opctl: fetch manifests, diff them against the cluster, and reconcile it", "opctl"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("opctl ") + cli::k_version, "Print the version and exit");
  cli::CommandAction action;
  cli::register_version(app, action);
  cli::register_reconcile(app, action);
  cli::register_diff(app, action);
  cli::register_validate(app, action);
  cli::register_status(app, action);
  cli::register_tree(app, action);
  cli::register_history(app, action);
  cli::register_rollback(app, action);
  cli::register_crds(app, action);
  cli::register_backup(app, action);
  cli::register_promote(app, action);
  cli::register_cluster(app, action);
  cli::register_install(app, action);
  cli::register_fetch(app, action);
  cli::register_completion(app, action);
  cli::register_instance(app, action);
  try {
    app.parse(argc, argv);
    return action ? action() : 0;
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    if (code != 0) print_suggestion(app, argc, argv);
    return code == 0 ? 0 : cli::k_exit_invalid_input;
  } catch (const Error& error) {
    return cli::print_error(error);
  } catch (const std::exception& error) {
    std::cerr << "internal error: " << error.what() << "\n";
    return cli::k_exit_cluster_error;
  }
}
