// The plan of the next pass as `opctl status` shows it: how many objects a
// pass would create, update, leave alone, prune and keep, and each step that
// sends a request, in the order the pass takes them.
#pragma once

#include <string>

#include "model/object.hpp"
#include "plan/pass_plan.hpp"

namespace opctl::cli {

// {"create": n, "update": n, "unchanged": n, "prune": n, "keep": n,
//  "steps": [{"action", "object", "wave", "reason"}]}: unchanged steps are
// counted, not listed.
model::Json render_plan_json(const plan::PassPlan& plan);

// "Next pass: ..." and a line per listed step; `prune_enabled` says whether
// the set's pass prunes (otherwise prune steps are what --prune would delete).
std::string render_plan_text(const plan::PassPlan& plan, bool prune_enabled);

}  // namespace opctl::cli
