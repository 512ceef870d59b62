// opctl history: the set's last runs as its ApplySet parent records them
// (apply/run_history.hpp), newest first, and its pin.
#include <fmt/format.h>

#include <iostream>

#include "apply/applyset_store.hpp"
#include "apply/run_history.hpp"
#include "apply/set_pin.hpp"
#include "build_info.hpp"
#include "cluster_connection.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "config_values.hpp"
#include "desired_set.hpp"
#include "exit_codes.hpp"
#include "pass_progress.hpp"
#include "source/git_revision.hpp"
#include "structured_output.hpp"

namespace opctl::cli {
namespace {

using model::Json;

struct HistoryOptions {
  CommonOptions common;
  std::string output = "text";
};

std::string short_commit(const Json& entry) {
  std::string commit = entry.value("commit", "");
  if (commit.empty()) return entry.value("revision", "-");
  bool dirty = commit.ends_with("-dirty");
  return source::short_commit_id(commit) + (dirty ? "-dirty" : "");
}

std::string notes_of(const Json& entry) {
  std::string notes;
  auto add = [&notes](const std::string& note) { notes += (notes.empty() ? "" : "; ") + note; };
  if (entry.value("rollback", false)) add("rollback");
  if (entry.contains("pinned") && !entry.value("rollback", false)) add("pinned");
  if (!entry.value("signer", "").empty()) add("signed by " + entry.value("signer", ""));
  if (!entry.value("subject", "").empty()) add("\"" + entry.value("subject", "") + "\"");
  if (!entry.value("message", "").empty()) add(entry.value("message", ""));
  return notes;
}

void print_text(const Json& history) {
  std::cout << fmt::format("History of {} (newest first, the last {} runs are kept)\n",
                           history["set"].get<std::string>(), apply::k_history_entries);
  if (const Json& pin = history["pin"]; pin.is_object())
    std::cout << fmt::format(
        "Pinned at {} (rollback to {} by {} at {}{}); opctl rollback --unpin follows {} again\n",
        source::short_commit_id(pin.value("commit", "")), pin.value("revision", ""), pin.value("by", ""),
        pin.value("time", ""), pin.value("untilNewCommit", false) ? ", until a new commit" : "",
        pin.value("ref", "its ref"));
  if (history["entries"].empty()) {
    std::cout << "No runs recorded.\n";
    return;
  }
  std::cout << fmt::format("{:<4} {:<20} {:<11} {:>9} {:<12} {:<10} {:>7} {:>10} {:>6} {:>6}  {}\n", "ID",
                           "STARTED", "RESULT", "DURATION", "COMMIT", "REF", "CREATED", "CONFIGURED",
                           "PRUNED", "FAILED", "NOTES");
  for (const auto& entry : history["entries"]) {
    std::string duration =
        entry.contains("durationSeconds") ? fmt::format("{:.1f}s", entry.value("durationSeconds", 0.0)) : "-";
    std::cout << fmt::format("{:<4} {:<20} {:<11} {:>9} {:<12} {:<10} {:>7} {:>10} {:>6} {:>6}  {}\n",
                             entry.value("id", 0), entry.value("started", ""), entry.value("result", ""),
                             duration, short_commit(entry), entry.value("ref", "-"),
                             entry.value("created", 0), entry.value("configured", 0),
                             entry.value("pruned", 0), entry.value("failed", 0), notes_of(entry));
  }
}

int run_history(HistoryOptions& options) {
  CommonOptions& common = options.common;
  finish_source_options(common);
  FetchProgress fetching(options.common);
  // A set named only by an opctl.yaml inside its repository: read it from there.
  if (!common.set_named && !common.source.repo.empty()) load_manifests(common);
  ClusterConnection connection = connect(common);
  plan::ApplySetParent parent = applyset_parent_of(common.config);
  apply::ApplySetStore store(*connection.client, parent, std::string("opctl/v") + k_version);
  auto live = store.read();
  auto records = apply::RunRecords::of(live);
  auto pin = apply::SetPin::of(live);
  Json history = {{"set", parent.qualified_name()},
                  {"pin", pin ? pin->to_json() : Json()},
                  {"entries", apply::parse_history(records.history, records.last_run)}};
  if (is_structured(options.output)) {
    std::cout << render_structured(history, options.output);
  } else {
    print_text(history);
  }
  return k_exit_ok;
}

}  // namespace

void register_history(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<HistoryOptions>();
  auto* command = app.add_subcommand(
      "history", "List the set's last runs (commit, result, counts, duration) and its pin");
  command->footer(
      "Every pass records itself on the set's ApplySet parent Secret (annotation opctl.io/history): the "
      "last 20 runs, newest first, with the commit and ref, the result, the object counts, the duration, "
      "the signer when --verify-commits checked it, and whether it was a rollback or applied a pinned "
      "commit. Nothing of the source is read but an opctl.yaml that names the set.\n\n"
      "Examples:\n"
      "  opctl history -f opctl.yaml\n"
      "  opctl history --path manifests-example/ -o json\n");
  add_source_flags(*command, options->common);
  add_set_flags(*command, options->common);
  add_cluster_flags(*command, options->common);
  command->add_option("-o,--output", options->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  add_output_flags(*command, options->common);
  add_progress_flag(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_history(*options); }; });
}

}  // namespace opctl::cli
