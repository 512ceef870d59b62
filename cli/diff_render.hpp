// Renders diff results for people (text, Markdown) and machines (JSON; the
// schema is documented in opctl-diff(1)).
#pragma once

#include <string>
#include <vector>

#include "diff/object_diff.hpp"
#include "markdown_budget.hpp"
#include "model/object.hpp"
#include "source/desired_source.hpp"
#include "terminal.hpp"

namespace opctl::cli {

struct DiffSummary {
  std::size_t added = 0, changed = 0, pruned = 0, unchanged = 0, failed = 0;
  std::size_t removed = 0;  // between two revisions (diff --base)
  bool has_differences() const { return added + changed + pruned + removed > 0; }
};

DiffSummary summarize(const std::vector<diff::ObjectDiff>& diffs);

// "~ apps/v1 Deployment shop/web"
std::string diff_header(const diff::ObjectDiff& diff);

struct TextOptions {
  Palette palette;     // colours on a terminal only
  bool quiet = false;  // only failed objects and the summary
  // The summary counts what a change to the source removes (diff --base), not what a pass prunes.
  bool between_revisions = false;
};

// Per changed object its header and unified YAML diff, then the summary line.
std::string render_diff_text(const std::vector<diff::ObjectDiff>& diffs, const TextOptions& options);
// The summary table, a table of the objects that differ and one collapsible
// diff per object: a pull-request comment or CI job summary, within `limit`
// bytes (rows and diffs that do not fit are counted in a note instead).
std::string render_diff_markdown(const std::vector<diff::ObjectDiff>& diffs,
                                 const source::SourceRevision& revision,
                                 const std::string& heading = "### opctl diff",
                                 std::size_t limit = k_markdown_limit);
// One object of a DiffReport: identity, action, source, changed paths, patch.
model::Json render_object_json(const diff::ObjectDiff& diff);
// The table of the objects that differ (marker, identity, source, note), then
// one collapsible diff per object, as many as fit in `limit` bytes of `out`;
// what does not fit is counted, naming `where` every object is.
void append_object_sections(std::string& out, const std::vector<diff::ObjectDiff>& diffs, std::size_t limit,
                            const std::string& where);
// One collapsible Markdown section with the object's unified diff.
std::string markdown_object(const diff::ObjectDiff& diff);
// Text (from the server, from the source) made safe inside HTML and table cells.
std::string escape_markdown(const std::string& text);
// The DiffReport documented in opctl-diff(1); --report writes the same.
model::Json render_diff_json(const std::vector<diff::ObjectDiff>& diffs,
                             const source::SourceRevision& revision);

}  // namespace opctl::cli
