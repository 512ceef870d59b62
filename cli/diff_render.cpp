#include "diff_render.hpp"

#include <fmt/format.h>

#include "diff/line_diff.hpp"

namespace opctl::cli {
namespace {

using diff::Change;
using model::Json;

const char* marker(Change change) {
  switch (change) {
    case Change::added: return "+";
    case Change::changed: return "~";
    case Change::pruned: return "-";
    case Change::failed: return "!";
    case Change::unchanged: return "=";
  }
  return "?";
}

std::string identity(const diff::ObjectDiff& diff) {
  const auto& key = diff.key;
  std::string where = key.namespace_name.empty() ? key.name : key.namespace_name + "/" + key.name;
  return fmt::format("{} {} {}", diff.api_version, key.kind, where);
}

std::string colour_line(const std::string& line, const Palette& palette) {
  if (line.starts_with("@@")) return palette.dim(line);
  if (line.starts_with("+")) return palette.green(line);
  if (line.starts_with("-")) return palette.red(line);
  return line;
}

std::string summary_line(const DiffSummary& summary) {
  return fmt::format("{} added, {} changed, {} pruned, {} unchanged{}", summary.added, summary.changed, summary.pruned,
                     summary.unchanged, summary.failed ? fmt::format(", {} failed", summary.failed) : "");
}

}  // namespace

DiffSummary summarize(const std::vector<diff::ObjectDiff>& diffs) {
  DiffSummary summary;
  for (const auto& diff : diffs) {
    switch (diff.change) {
      case Change::added: ++summary.added; break;
      case Change::changed: ++summary.changed; break;
      case Change::pruned: ++summary.pruned; break;
      case Change::unchanged: ++summary.unchanged; break;
      case Change::failed: ++summary.failed; break;
    }
  }
  return summary;
}

std::string diff_header(const diff::ObjectDiff& diff) {
  return fmt::format("{} {}{}{}", marker(diff.change), identity(diff), diff.local_comparison ? " (local comparison)" : "",
                     diff.conflict.empty() ? "" : " (conflict: reconcile needs --force-conflicts)");
}

std::string render_diff_text(const std::vector<diff::ObjectDiff>& diffs, const Palette& palette) {
  std::string out;
  for (const auto& diff : diffs) {
    if (diff.change == Change::unchanged) continue;
    out += palette.bold(diff_header(diff)) + "\n";
    if (!diff.conflict.empty()) out += palette.yellow("  " + diff.conflict) + "\n";
    if (diff.change == Change::failed) {
      out += palette.red("  error: " + diff.error) + "\n";
      continue;
    }
    for (const auto& line : diff::split_lines(diff::render_unified(diff))) out += colour_line(line, palette) + "\n";
  }
  out += summary_line(summarize(diffs)) + "\n";
  return out;
}

std::string render_diff_markdown(const std::vector<diff::ObjectDiff>& diffs, const source::SourceRevision& revision) {
  DiffSummary summary = summarize(diffs);
  std::string out = "### opctl diff\n\n";
  if (!revision.commit.empty())
    out += fmt::format("Source: `{}`{}\n\n", revision.annotation(),
                       revision.subject.empty() ? "" : " — " + revision.subject);
  out += "| added | changed | pruned | unchanged | failed |\n|---:|---:|---:|---:|---:|\n";
  out += fmt::format("| {} | {} | {} | {} | {} |\n\n", summary.added, summary.changed, summary.pruned,
                     summary.unchanged, summary.failed);
  if (!summary.has_differences() && summary.failed == 0) out += "No differences: the cluster is in sync.\n";
  for (const auto& diff : diffs) {
    if (diff.change == Change::unchanged) continue;
    out += fmt::format("<details><summary><code>{}</code></summary>\n\n", diff_header(diff));
    if (!diff.location.file.empty()) out += fmt::format("From `{}:{}`.\n\n", diff.location.file, diff.location.line);
    if (diff.change == Change::failed) {
      out += fmt::format("Error: {}\n\n</details>\n\n", diff.error);
      continue;
    }
    out += "```diff\n" + diff::render_unified(diff) + "```\n\n</details>\n\n";
  }
  return out;
}

Json render_diff_json(const std::vector<diff::ObjectDiff>& diffs, const source::SourceRevision& revision) {
  DiffSummary summary = summarize(diffs);
  Json objects = Json::array();
  for (const auto& diff : diffs) {
    Json entry = {{"apiVersion", diff.api_version},
                  {"kind", diff.key.kind},
                  {"namespace", diff.key.namespace_name},
                  {"name", diff.key.name},
                  {"action", diff::to_string(diff.change)},
                  {"localComparison", diff.local_comparison},
                  {"source", {{"file", diff.location.file}, {"line", diff.location.line}}},
                  {"changedPaths", diff.changed_paths}};
    Json before = diff.before.is_null() ? Json::object() : diff.before;
    Json after = diff.after.is_null() ? Json::object() : diff.after;
    entry["patch"] = Json::diff(before, after);
    if (diff.change == Change::failed) entry["error"] = diff.error;
    if (!diff.conflict.empty()) entry["conflict"] = diff.conflict;
    objects.push_back(std::move(entry));
  }
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "DiffReport"},
          {"source",
           {{"repo", revision.repo}, {"ref", revision.ref}, {"commit", revision.commit}, {"path", revision.path}}},
          {"summary",
           {{"added", summary.added},
            {"changed", summary.changed},
            {"pruned", summary.pruned},
            {"unchanged", summary.unchanged},
            {"failed", summary.failed}}},
          {"objects", objects}};
}

}  // namespace opctl::cli
