// Renders a reconcile pass: progress while it runs, and the report (text,
// JSON for machines, Markdown for people) when it is done.
#pragma once

#include <string>

#include "apply/apply_pass.hpp"
#include "model/object.hpp"
#include "source/desired_source.hpp"
#include "terminal.hpp"

namespace opctl::cli {

// One line per object as its outcome is known.
std::string outcome_line(const apply::ObjectOutcome& outcome, const Palette& palette);

std::string pass_summary(const apply::PassReport& report);

model::Json render_pass_json(const apply::PassReport& report, const source::SourceRevision& revision);
std::string render_pass_markdown(const apply::PassReport& report, const source::SourceRevision& revision);

}  // namespace opctl::cli
