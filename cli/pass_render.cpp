#include "pass_render.hpp"

#include <fmt/format.h>

#include "apply/lease_lock.hpp"
#include "markdown_budget.hpp"
#include "source_render.hpp"

namespace opctl::cli {

using apply::Action;

namespace {

std::string coloured(const Palette& palette, Action action) {
  std::string text = apply::to_string(action);
  switch (action) {
    case Action::created:
    case Action::planned_create:
      return palette.green(text);
    case Action::configured:
    case Action::planned_update:
      return palette.yellow(text);
    case Action::pruned:
    case Action::planned_prune:
      return palette.red(text);
    case Action::failed:
      return palette.red(text);
    case Action::unchanged:
    case Action::kept:
    case Action::skipped:
      return palette.dim(text);
  }
  return text;
}

}  // namespace

std::string outcome_line(const apply::ObjectOutcome& outcome, const Palette& palette) {
  std::string line = fmt::format("{} {}", outcome.key.to_string(), coloured(palette, outcome.action));
  if (!outcome.message.empty()) line += ": " + outcome.message;
  return line;
}

std::string pass_summary(const apply::PassReport& report) {
  std::string text = fmt::format("{} objects: {} created, {} configured, {} unchanged",
                                 report.outcomes.size(), report.count(Action::created),
                                 report.count(Action::configured), report.count(Action::unchanged));
  if (report.dry_run)
    text = fmt::format(
        "dry run, {} objects: {} would be created, {} would be configured, {} unchanged, {} would be pruned",
        report.outcomes.size(), report.count(Action::planned_create), report.count(Action::planned_update),
        report.count(Action::unchanged), report.count(Action::planned_prune));
  for (auto [action, label] : {std::pair{Action::pruned, "pruned"}, std::pair{Action::kept, "kept"},
                               std::pair{Action::failed, "failed"}, std::pair{Action::skipped, "skipped"}})
    if (std::size_t n = report.count(action); n > 0 || action == Action::failed)
      text += fmt::format(", {} {}", n, label);
  return text + fmt::format(" ({:.1f}s)", report.duration.count() / 1000.0);
}

model::Json render_pass_json(const apply::PassReport& report, const source::SourceRevision& revision) {
  model::Json objects = model::Json::array();
  for (const auto& outcome : report.outcomes) {
    model::Json entry = {{"apiVersion", outcome.api_version},
                         {"kind", outcome.key.kind},
                         {"namespace", outcome.key.namespace_name},
                         {"name", outcome.key.name},
                         {"wave", outcome.wave},
                         {"action", apply::to_string(outcome.action)},
                         {"source", {{"file", outcome.location.file}, {"line", outcome.location.line}}}};
    if (!outcome.message.empty()) entry["message"] = outcome.message;
    if (outcome.health)
      entry["health"] = {{"state", apply::to_string(outcome.health->state)},
                         {"message", outcome.health->message}};
    objects.push_back(std::move(entry));
  }
  model::Json summary = model::Json::object();
  for (auto action :
       {Action::created, Action::configured, Action::unchanged, Action::pruned, Action::kept, Action::failed,
        Action::skipped, Action::planned_create, Action::planned_update, Action::planned_prune})
    if (std::size_t n = report.count(action); n > 0) summary[apply::to_string(action)] = n;
  model::Json source = source_json(revision);
  source["subject"] = revision.subject;  // the RunReport's source also names the commit's subject
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "RunReport"},
          {"result", apply::to_string(report.result)},
          {"message", report.message},
          {"dryRun", report.dry_run},
          {"startTime", apply::format_micro_time(report.started)},
          {"durationSeconds", report.duration.count() / 1000.0},
          {"source", source},
          {"summary", summary},
          {"objects", objects}};
}

std::string render_pass_markdown(const apply::PassReport& report, const source::SourceRevision& revision) {
  std::string out = fmt::format("### opctl reconcile: {}\n\n", apply::to_string(report.result));
  if (!revision.annotation().empty()) out += fmt::format("Source: `{}`\n\n", revision.annotation());
  if (!revision.commit.empty()) out += fmt::format("Signature: {}\n\n", signature_text(revision.signer));
  if (!report.message.empty()) out += fmt::format("{}\n\n", report.message);
  out += pass_summary(report) + "\n\n";
  out += "| object | action | details |\n|---|---|---|\n";
  std::vector<std::string> rows;
  for (const auto& outcome : report.outcomes) {
    if (outcome.action == Action::unchanged) continue;
    std::string details = outcome.message;
    if (outcome.health && outcome.health->state != apply::HealthState::healthy)
      details += (details.empty() ? "" : "; ") + outcome.health->message;
    for (auto& c : details)
      if (c == '|' || c == '\n') c = ' ';
    rows.push_back(fmt::format("| `{}` | {} | {} |\n", outcome.key.to_string(),
                               apply::to_string(outcome.action), details));
  }
  // Room for the note, and for the pin's line the command may add after the report.
  constexpr std::size_t k_reserve = 1000;
  if (std::size_t omitted = append_while_fits(out, rows, k_markdown_limit, k_reserve))
    out += "\n" + omitted_note(omitted, "objects are", "`--report FILE` (or `-o json`)");
  return out;
}

}  // namespace opctl::cli
