#include <fmt/format.h>

#include <iostream>

#include "apply/prune_preview.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "config_values.hpp"
#include "desired_set.hpp"
#include "diff/revision_diff.hpp"
#include "diff_render.hpp"
#include "exit_codes.hpp"
#include "live_comparison.hpp"
#include "pass_progress.hpp"
#include "plan/selection.hpp"
#include "progress.hpp"
#include "report_file.hpp"
#include "revision_diff_render.hpp"
#include "structured_output.hpp"

namespace opctl::cli {
namespace {

struct DiffOptions {
  CommonOptions common;
  bool exit_code = false;
  std::string output = "text";
  std::string report_file;
  std::string base;         // --base REF: what the change from REF to the head does
  bool no_cluster = false;  // --no-cluster: with --base, compare the revisions only
};

void print_result(const DiffOptions& options, const std::vector<diff::ObjectDiff>& diffs,
                  const source::SourceRevision& revision) {
  if (is_structured(options.output)) {
    std::cout << render_structured(render_diff_json(diffs, revision), options.output);
  } else if (options.output == "markdown") {
    std::cout << render_diff_markdown(diffs, revision);
  } else {
    TextOptions text{Palette{use_color(options.common.no_color)}, options.common.quiet};
    std::cout << render_diff_text(diffs, text);
  }
  std::cout.flush();
  if (!options.report_file.empty()) write_report_file(options.report_file, render_diff_json(diffs, revision));
}

// What a pass with `desired` would change in the cluster (and prune, with --prune).
apply::DiffPassResult diff_live(DiffOptions& options, DesiredSet& desired) {
  require_named_set_for_prune(options.common);
  const config::RunConfig& config = options.common.config;
  auto& client = *desired.connection.client;
  apply::LiveStateOptions read;
  read.record_forbidden = true;
  const model::LabelSelector& selector = options.common.label_selector;
  // -l: the selected objects are compared; the whole set still tells which members are pruned.
  std::vector<model::Object> selected;
  if (!selector.empty()) selected = plan::selected_objects(desired.objects, selector);
  LiveComparison comparison =
      compare_with_live(client, selector.empty() ? desired.objects : selected, config, read);
  apply::DiffPassResult& result = comparison.result;
  if (options.common.prune) {
    apply::PrunePreviewOptions prune;
    prune.applyset = applyset_parent_of(config);
    prune.prune_namespaces = options.common.prune_namespaces;
    prune.prune_crds = options.common.prune_crds;
    prune.prune_data = options.common.prune_data;
    prune.limits = prune_limits_of(options.common);
    prune.source = source::set_source_identity(options.common.source);
    prune.take_over = options.common.take_over;
    prune.compare = comparison.options.compare;
    prune.selector = selector;
    auto pruned = apply::prune_preview(client, desired.objects, prune);
    result.diffs.insert(result.diffs.end(), pruned.begin(), pruned.end());
  }
  if (options.common.verbose)
    std::cerr << fmt::format("opctl: {} objects decided from live state, {} server dry runs\n",
                             result.fast_path, result.dry_runs);
  return std::move(result);
}

// The options of the base revision: the same source at `ref` (for a
// directory, the same directory at `ref` of its work tree).
CommonOptions base_options_of(const CommonOptions& head, const std::string& ref) {
  CommonOptions base = head;
  if (base.source.repo.empty())
    base.source.work_tree_ref = ref;
  else
    base.source.ref = ref;
  // Without -f, a directory's opctl.yaml was read from disk, as the head has it;
  // the base's own is among the files of the base, found there as in a git source.
  if (base.config_file.empty()) base.config = {};
  return base;
}

void print_revision_result(const DiffOptions& options, const RevisionDiffReport& report) {
  if (is_structured(options.output)) {
    std::cout << render_structured(render_revision_json(report), options.output);
  } else if (options.output == "markdown") {
    std::cout << render_revision_markdown(report);
  } else {
    TextOptions text{Palette{use_color(options.common.no_color)}, options.common.quiet};
    std::cout << render_revision_text(report, text);
  }
  std::cout.flush();
  if (!options.report_file.empty()) write_report_file(options.report_file, render_revision_json(report));
}

// diff --base: the revisions compared as written (no cluster needed), then,
// unless --no-cluster, the head against the cluster as a plain diff does it.
int run_diff_base(DiffOptions& options) {
  CommonOptions base_options =
      base_options_of(options.common, options.base);  // before the head's config applies
  auto [head_revision, head_objects] = load_manifests(options.common);
  auto [base_revision, base_objects] = load_manifests(base_options);
  const model::LabelSelector& selector = options.common.label_selector;
  RevisionDiffReport report{base_revision, head_revision,
                            diff::compare_revisions(plan::selected_objects(base_objects, selector),
                                                    plan::selected_objects(head_objects, selector), {}),
                            std::nullopt};
  DiffSummary live_summary;
  if (!options.no_cluster) {
    DesiredSet desired = connect_desired_set(options.common, head_revision, std::move(head_objects));
    report.live = diff_live(options, desired).diffs;
    live_summary = summarize(*report.live);
  }
  print_revision_result(options, report);
  if (live_summary.failed > 0) return k_exit_cluster_error;
  bool differences = summarize(report.changes).has_differences() || live_summary.has_differences();
  return options.exit_code && differences ? k_exit_differences : k_exit_ok;
}

int run_diff(DiffOptions& options) {
  finish_source_options(options.common);
  const CommonOptions& common = options.common;
  ProgressDisplay display(progress_settings(common));
  SourceProgress progress(options.common.source, display, common.quiet);
  if (!options.base.empty()) return run_diff_base(options);
  if (options.no_cluster)
    throw InvalidInputError(
        {Problem{"", 0, "--no-cluster", "needs --base (without it, the diff is the cluster's)"}});
  DesiredSet desired = load_desired_set(options.common);
  forget_field_lines(desired.objects);
  auto result = diff_live(options, desired);
  // The diffs hold all that is printed: the objects (17 MiB at N = 5000) go before the output is built.
  desired.objects = std::vector<model::Object>();
  print_result(options, result.diffs, desired.revision);
  DiffSummary summary = summarize(result.diffs);
  if (summary.failed > 0) return k_exit_cluster_error;
  return options.exit_code && summary.has_differences() ? k_exit_differences : k_exit_ok;
}

}  // namespace

void register_diff(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<DiffOptions>();
  auto* command =
      app.add_subcommand("diff", "Show what a reconcile pass would change, without changing anything");
  command->footer(
      "Exit codes: 0 in sync (or differences without --exit-code), 1 differences (with --exit-code), "
      ">=2 error.\n\n"
      "Examples:\n"
      "  opctl diff --path manifests-example/\n"
      "  opctl diff --path manifests-example/ --prune        # also what a pruning pass would delete\n"
      "  opctl diff --path manifests-example/ -l app=web --exit-code   # only the objects labelled app=web\n"
      "  opctl diff --repo https://git.example/ops.git --path prod --exit-code -o markdown > diff.md\n"
      "  opctl diff --path envs/prod --base origin/main --no-cluster -o markdown   # a pull request, no "
      "cluster\n");
  add_source_flags(*command, options->common);
  add_cluster_flags(*command, options->common);
  add_kind_flags(*command, options->common);
  command->add_flag("--exit-code", options->exit_code, "Exit 1 when there are differences (0 when in sync)");
  command->add_flag(
      "--prune", options->common.prune,
      "Also show the objects a pass with --prune would delete (also: prune: true in opctl.yaml)");
  command->add_flag(
      "--prune-namespaces", options->common.prune_namespaces,
      "With --prune, count Namespaces that still hold objects opctl does not manage as pruned too");
  command->add_flag(
      "--prune-crds", options->common.prune_crds,
      "With --prune, count CustomResourceDefinitions whose custom resources remain as pruned too");
  add_prune_guard_flags(*command, options->common);
  add_set_flags(*command, options->common);
  add_take_over_flag(*command, options->common);
  add_selector_flag(*command, options->common,
                    "report only the objects it selects (by their labels in the source; a pruned one by its "
                    "live labels), and --exit-code only for them");
  command->add_option("-o,--output", options->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml", "markdown"}))
      ->capture_default_str();
  command->add_option("--report", options->report_file, "Also write the JSON report to this file");
  command
      ->add_option(
          "--base", options->base,
          "Also compare with the source at this revision: the objects a change from REF adds, removes "
          "and changes (with --repo: REF of the repository; with --path in a git work tree: REF of "
          "that checkout, e.g. origin/main)")
      ->type_name("REF");
  command->add_flag("--no-cluster", options->no_cluster,
                    "With --base, compare the two revisions only: no kubeconfig or cluster needed");
  add_output_flags(*command, options->common);
  add_progress_flag(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_diff(*options); }; });
}

}  // namespace opctl::cli
