// "did you mean --prune?" for a mistyped flag or subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace opctl::cli {

// The closest known flag or subcommand to `word` for the command that was
// being parsed, or empty when nothing is close.
std::string closest_name(const CLI::App& app, const std::string& word);

}  // namespace opctl::cli
