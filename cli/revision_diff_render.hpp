// Renders `opctl diff --base`: what a change to the source does between two
// revisions, and (with a cluster) what the head would change live, as text,
// a pull-request comment (Markdown) or a RevisionDiffReport (JSON, the schema
// is documented in opctl-diff(1)).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diff/object_diff.hpp"
#include "diff_render.hpp"
#include "model/object.hpp"
#include "source/desired_source.hpp"

namespace opctl::cli {

struct RevisionDiffReport {
  source::SourceRevision base;
  source::SourceRevision head;
  std::vector<diff::ObjectDiff> changes;              // diff::compare_revisions
  std::optional<std::vector<diff::ObjectDiff>> live;  // nullopt: not compared with a cluster (--no-cluster)
};

// "main@1a2b3c4d5e6f", "manifests (no git)" for a directory outside git.
std::string revision_label(const source::SourceRevision& revision);

std::string render_revision_text(const RevisionDiffReport& report, const TextOptions& options);
std::string render_revision_markdown(const RevisionDiffReport& report);
model::Json render_revision_json(const RevisionDiffReport& report);

}  // namespace opctl::cli
