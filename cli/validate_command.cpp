#include <iostream>

#include "commands.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"

namespace opctl::cli {

void register_validate(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<CommonOptions>();
  auto* command = app.add_subcommand("validate", "Validate manifests offline (and against the cluster's schemas)");
  add_source_flags(*command, *options);
  command->callback([options, &action] {
    finish_source_options(*options);
    action = [] {
      std::cerr << "opctl validate is not implemented yet\n";
      return k_exit_invalid_input;
    };
  });
}

}  // namespace opctl::cli
