#include "diff_render.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "diff/line_diff.hpp"
#include "source_render.hpp"

namespace opctl::cli {
namespace {

using diff::Change;
using model::Json;

constexpr const char* k_local_note =
    "(local comparison): the server's dry run was not allowed (or the namespace or CRD is created by this "
    "same "
    "set), so the merge was computed locally; server defaults for fields not set yet are not shown.";

const char* marker(Change change) {
  switch (change) {
    case Change::added:
      return "+";
    case Change::changed:
      return "~";
    case Change::pruned:
    case Change::removed:
      return "-";
    case Change::failed:
      return "!";
    case Change::unchanged:
      return "=";
  }
  return "?";
}

std::string identity(const diff::ObjectDiff& diff) {
  const auto& key = diff.key;
  std::string where = key.namespace_name.empty() ? key.name : key.namespace_name + "/" + key.name;
  return fmt::format("{} {} {}", diff.api_version, key.kind, where);
}

std::string source_of(const diff::ObjectDiff& diff) {
  if (diff.location.file.empty()) return "";
  return diff.location.line > 0 ? fmt::format("{}:{}", diff.location.file, diff.location.line)
                                : diff.location.file;
}

std::string colour_line(const std::string& line, const Palette& palette) {
  if (line.starts_with("@@")) return palette.dim(line);
  if (line.starts_with("+")) return palette.green(line);
  if (line.starts_with("-")) return palette.red(line);
  return line;
}

std::string summary_line(const DiffSummary& summary, bool between_revisions) {
  if (between_revisions)
    return fmt::format("{} added, {} changed, {} removed, {} unchanged between the revisions", summary.added,
                       summary.changed, summary.removed, summary.unchanged);
  return fmt::format("{} added, {} changed, {} pruned, {} unchanged{}", summary.added, summary.changed,
                     summary.pruned, summary.unchanged,
                     summary.failed ? fmt::format(", {} failed", summary.failed) : "");
}

bool any_local(const std::vector<diff::ObjectDiff>& diffs) {
  return std::any_of(diffs.begin(), diffs.end(), [](const auto& diff) {
    return diff.local_comparison && diff.change != Change::unchanged;
  });
}

// A code fence longer than any run of backticks in `text`, so a value
// holding ``` cannot end the block early.
std::string fence_for(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

}  // namespace

std::string escape_markdown(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '|':
        out += "\\|";
        break;
      case '\n':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<std::string> markdown_object_rows(const std::vector<diff::ObjectDiff>& diffs) {
  std::vector<std::string> rows;
  for (const auto& diff : diffs) {
    if (diff.change == Change::unchanged) continue;
    std::string note = diff::to_string(diff.change);
    if (diff.local_comparison) note += ", local comparison";
    if (!diff.conflict.empty()) note += ", conflict";
    std::string source = source_of(diff);
    rows.push_back(fmt::format("| {} | `{}` | {} | {} |\n", marker(diff.change), identity(diff),
                               source.empty() ? "" : "`" + source + "`", note));
  }
  return rows;
}

void append_object_sections(std::string& out, const std::vector<diff::ObjectDiff>& diffs, std::size_t limit,
                            const std::string& where) {
  // Room for the notes that say what was left out, and for what a caller appends after.
  constexpr std::size_t k_reserve = 600;
  out += "| | object | source | note |\n|---|---|---|---|\n";
  if (std::size_t omitted = append_while_fits(out, markdown_object_rows(diffs), limit, k_reserve))
    out += fmt::format("| | _{} more_ | | |\n", omitted);
  out += "\n";
  std::size_t omitted = 0;
  for (const auto& diff : diffs) {
    if (diff.change == Change::unchanged) continue;
    if (omitted > 0) {
      ++omitted;
      continue;
    }
    std::string section = markdown_object(diff);
    if (out.size() + section.size() + k_reserve > limit) {
      omitted = 1;
      continue;
    }
    out += section;
  }
  if (omitted > 0) out += omitted_note(omitted, "objects' diffs are", where);
}

std::string markdown_object(const diff::ObjectDiff& diff) {
  std::string out =
      fmt::format("<details><summary><code>{}</code></summary>\n\n", escape_markdown(diff_header(diff)));
  if (std::string source = source_of(diff); !source.empty()) out += fmt::format("From `{}`.\n\n", source);
  if (!diff.conflict.empty()) out += fmt::format("Conflict: {}\n\n", escape_markdown(diff.conflict));
  if (diff.change == Change::failed)
    return out + fmt::format("Error: {}\n\n</details>\n\n", escape_markdown(diff.error));
  std::string body = diff::render_unified(diff);
  std::string fence = fence_for(body);
  return out + fence + "diff\n" + body + fence + "\n\n</details>\n\n";
}

DiffSummary summarize(const std::vector<diff::ObjectDiff>& diffs) {
  DiffSummary summary;
  for (const auto& diff : diffs) {
    switch (diff.change) {
      case Change::added:
        ++summary.added;
        break;
      case Change::changed:
        ++summary.changed;
        break;
      case Change::pruned:
        ++summary.pruned;
        break;
      case Change::removed:
        ++summary.removed;
        break;
      case Change::unchanged:
        ++summary.unchanged;
        break;
      case Change::failed:
        ++summary.failed;
        break;
    }
  }
  return summary;
}

std::string diff_header(const diff::ObjectDiff& diff) {
  return fmt::format("{} {}{}{}", marker(diff.change), identity(diff),
                     diff.local_comparison ? " (local comparison)" : "",
                     diff.conflict.empty() ? "" : " (conflict: reconcile needs --force-conflicts)");
}

std::string render_diff_text(const std::vector<diff::ObjectDiff>& diffs, const TextOptions& options) {
  const Palette& palette = options.palette;
  std::string out;
  for (const auto& diff : diffs) {
    if (diff.change == Change::unchanged) continue;
    if (options.quiet && diff.change != Change::failed) continue;
    out += palette.bold(diff_header(diff)) + "\n";
    if (!diff.conflict.empty()) out += palette.yellow("  " + diff.conflict) + "\n";
    if (diff.change == Change::failed) {
      out += palette.red("  error: " + diff.error) + "\n";
      continue;
    }
    for (const auto& line : diff::split_lines(diff::render_unified(diff)))
      out += colour_line(line, palette) + "\n";
  }
  out += summary_line(summarize(diffs), options.between_revisions) + "\n";
  if (!options.quiet && any_local(diffs)) out += palette.dim(k_local_note) + "\n";
  return out;
}

std::string render_diff_markdown(const std::vector<diff::ObjectDiff>& diffs,
                                 const source::SourceRevision& revision, const std::string& heading,
                                 std::size_t limit) {
  DiffSummary summary = summarize(diffs);
  std::string out = heading + "\n\n";
  if (!revision.commit.empty()) {
    out += fmt::format("Source: `{}`{}\n\n", revision.annotation(),
                       revision.subject.empty() ? "" : " — " + escape_markdown(revision.subject));
    out += fmt::format("Signature: {}\n\n", escape_markdown(signature_text(revision.signer)));
  }
  out += "| added | changed | pruned | unchanged | failed |\n|---:|---:|---:|---:|---:|\n";
  out += fmt::format("| {} | {} | {} | {} | {} |\n\n", summary.added, summary.changed, summary.pruned,
                     summary.unchanged, summary.failed);
  if (!summary.has_differences() && summary.failed == 0)
    return out + "No differences: the cluster is in sync.\n";
  append_object_sections(out, diffs, limit, "`opctl diff -o json` (or `--report FILE`)");
  if (any_local(diffs)) out += fmt::format("_{}_\n", k_local_note);
  return out;
}

Json render_object_json(const diff::ObjectDiff& diff) {
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
  entry["patch"] = diff.change == Change::failed ? Json::array() : Json::diff(before, after);
  if (diff.change == Change::failed) entry["error"] = diff.error;
  if (!diff.conflict.empty()) entry["conflict"] = diff.conflict;
  return entry;
}

Json render_diff_json(const std::vector<diff::ObjectDiff>& diffs, const source::SourceRevision& revision) {
  DiffSummary summary = summarize(diffs);
  Json objects = Json::array();
  for (const auto& diff : diffs)
    objects.push_back(render_object_json(diff));
  Json report = {{"apiVersion", "opctl.io/v1alpha1"},
                 {"kind", "DiffReport"},
                 {"source", source_json(revision)},
                 {"summary",
                  {{"added", summary.added},
                   {"changed", summary.changed},
                   {"pruned", summary.pruned},
                   {"unchanged", summary.unchanged},
                   {"failed", summary.failed}}}};
  // Moved in, not copied by an initializer list: at N = 5000 the objects are several MiB.
  report["objects"] = std::move(objects);
  return report;
}

}  // namespace opctl::cli
