// Flags shared by the subcommands that talk to a cluster or read manifests.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "source/desired_source.hpp"

namespace opctl::cli {

struct CommonOptions {
  source::SourceOptions source;
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;
  int concurrency = 16;
  double qps = 100;
  int burst = 200;
  bool force_conflicts = false;
  bool no_color = false;
  bool verbose = false;
  bool quiet = false;
};

void add_source_flags(CLI::App& command, CommonOptions& options);
// Fills in what comes from the environment (OPCTL_GIT_TOKEN) after parsing.
void finish_source_options(CommonOptions& options);
void add_cluster_flags(CLI::App& command, CommonOptions& options);
void add_output_flags(CLI::App& command, CommonOptions& options);

}  // namespace opctl::cli
