#include "revision_diff_render.hpp"

#include <fmt/format.h>

namespace opctl::cli {
namespace {

using model::Json;

constexpr const char* k_no_cluster = "not compared with a cluster (--no-cluster)";

Json revision_json(const source::SourceRevision& revision) {
  return {
      {"repo", revision.repo}, {"ref", revision.ref}, {"commit", revision.commit}, {"path", revision.path}};
}

std::string short_commit(const std::string& commit) {
  bool dirty = commit.ends_with("-dirty");
  return commit.substr(0, 12) + (dirty ? "-dirty" : "");
}

}  // namespace

std::string revision_label(const source::SourceRevision& revision) {
  if (revision.commit.empty()) return revision.path + " (no git)";
  return fmt::format("{}@{}", revision.ref.empty() ? "HEAD" : revision.ref, short_commit(revision.commit));
}

std::string render_revision_text(const RevisionDiffReport& report, const TextOptions& options) {
  const Palette& palette = options.palette;
  TextOptions between = options;
  between.between_revisions = true;
  std::string out = palette.bold(fmt::format("Changes from base {} to head {}:", revision_label(report.base),
                                             revision_label(report.head))) +
                    "\n";
  out += render_diff_text(report.changes, between);
  if (!report.live) return out + "\n" + palette.bold("Against the cluster: ") + k_no_cluster + "\n";
  out += "\n" + palette.bold("Against the cluster (what a pass with the head would change):") + "\n";
  return out + render_diff_text(*report.live, options);
}

std::string render_revision_markdown(const RevisionDiffReport& report) {
  // The part against the cluster gets at most half the room, rendered first so the change gets the rest.
  std::string live = report.live ? render_diff_markdown(*report.live, report.head, "#### Against the cluster",
                                                        k_markdown_limit / 2)
                                 : fmt::format("#### Against the cluster\n\n_{}._\n", k_no_cluster);
  DiffSummary summary = summarize(report.changes);
  std::string out = "### opctl diff: what this change does\n\n";
  out += fmt::format("Base `{}` → head `{}`{}.\n\n", revision_label(report.base), revision_label(report.head),
                     report.head.path.empty() ? "" : fmt::format(", path `{}`", report.head.path));
  out += "| added | changed | removed | unchanged |\n|---:|---:|---:|---:|\n";
  out += fmt::format("| {} | {} | {} | {} |\n\n", summary.added, summary.changed, summary.removed,
                     summary.unchanged);
  if (!summary.has_differences())
    out += "No object changes between the revisions.\n\n";
  else
    append_object_sections(out, report.changes, k_markdown_limit - live.size(),
                           "`opctl diff --base REF -o json` (or `--report FILE`)");
  return out + live;
}

Json render_revision_json(const RevisionDiffReport& report) {
  DiffSummary summary = summarize(report.changes);
  Json objects = Json::array();
  for (const auto& diff : report.changes)
    objects.push_back(render_object_json(diff));
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "RevisionDiffReport"},
          {"base", revision_json(report.base)},
          {"head", revision_json(report.head)},
          {"summary",
           {{"added", summary.added},
            {"changed", summary.changed},
            {"removed", summary.removed},
            {"unchanged", summary.unchanged}}},
          {"objects", objects},
          {"live", report.live ? render_diff_json(*report.live, report.head) : Json()}};
}

}  // namespace opctl::cli
