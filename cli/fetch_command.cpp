// opctl fetch: bring the git cache up to date and say which commit a pass
// would use. No manifest is read and no cluster is contacted, so a pipeline
// can warm the cache (or pin the commit it reviewed) before the real run.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_options.hpp"
#include "pass_progress.hpp"
#include "progress.hpp"
#include "source/desired_source.hpp"
#include "source_render.hpp"
#include "structured_output.hpp"

namespace opctl::cli {
namespace {

struct FetchCommandOptions {
  CommonOptions common;
  std::string output = "text";
};

// The repository's root is shown as ".", as in the opctl.io/source annotation.
std::string shown_path(const source::SourceRevision& revision) {
  return revision.path.empty() ? "." : revision.path;
}

nlohmann::json revision_json(const source::SourceRevision& revision) {
  nlohmann::json out = {{"repo", revision.repo},       {"ref", revision.ref},   {"commit", revision.commit},
                        {"author", revision.author},   {"time", revision.time}, {"subject", revision.subject},
                        {"path", shown_path(revision)}};
  if (!revision.commit.empty()) out["signature"] = signature_json(revision.signer);
  return out;
}

void print_text(const source::SourceRevision& revision) {
  if (revision.commit.empty()) {
    std::cout << fmt::format("{}: not in a git work tree\n", revision.path);
    return;
  }
  std::cout << fmt::format(
      "repo:    {}\nref:     {}\ncommit:  {}\nauthor:  {}\ntime:    {}\nsubject: {}\npath:    {}\n",
      revision.repo, revision.ref, revision.commit, revision.author, revision.time, revision.subject,
      shown_path(revision));
  std::cout << fmt::format("signer:  {}\n", signature_text(revision.signer));
}

}  // namespace

void register_fetch(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<FetchCommandOptions>();
  auto* command = app.add_subcommand(
      "fetch",
      "Fetch the git source into the cache and print the commit a pass would use (no cluster access)");
  add_source_flags(*command, options->common);
  command->add_option("-o,--output", options->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  command->add_flag("-v,--verbose", options->common.verbose, "Log what the fetch did to stderr");
  add_progress_flag(*command, options->common);
  command->footer(
      "Checks that --path exists at that commit; reads and parses no manifest.\n\n"
      "The transfer's progress (objects received, bytes) goes to stderr: a live line on a terminal, "
      "elsewhere a line every --progress-interval while it lasts.\n\n"
      "With --verify-commits, the commit must be signed by a key the trust files allow; the signer is "
      "printed.\n\n"
      "Exit codes: 0 fetched, 2 unknown ref or path, a bad flag, or (with --verify-commits) an unsigned or "
      "untrusted commit, 3 the fetch failed (network, auth).\n\n"
      "Examples:\n"
      "  opctl fetch --repo https://github.com/acme/deploy --ref main --path prod\n"
      "  opctl fetch --repo git@github.com:acme/deploy.git -o json | jq -r .commit\n");
  command->callback([options, &action] {
    finish_source_options(options->common);
    action = [options] {
      CommonOptions& common = options->common;
      source::SourceRevision revision;
      {
        ProgressDisplay display(progress_settings(false, common.verbose, progress_interval(common)));
        SourceProgress progress(common.source, display, false);
        revision = source::fetch_desired_source(common.source);
      }
      if (is_structured(options->output))
        std::cout << render_structured(revision_json(revision), options->output);
      else
        print_text(revision);
      return 0;
    };
  });
}

}  // namespace opctl::cli
