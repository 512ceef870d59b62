#include "plan_render.hpp"

#include <fmt/format.h>

namespace opctl::cli {
namespace {

using model::Json;
using plan::StepAction;

std::string identity(const plan::PlanStep& step) {
  std::string where = step.key.namespace_name.empty() ? "" : step.key.namespace_name + "/";
  return fmt::format("{} {} {}{}", step.api_version, step.key.kind, where, step.key.name);
}

}  // namespace

Json render_plan_json(const plan::PassPlan& plan) {
  Json json = Json::object();
  for (StepAction action :
       {StepAction::create, StepAction::update, StepAction::unchanged, StepAction::prune, StepAction::keep})
    json[plan::to_string(action)] = plan.count(action);
  Json steps = Json::array();
  for (const auto& step : plan.steps) {
    if (step.action == StepAction::unchanged) continue;
    steps.push_back({{"action", plan::to_string(step.action)},
                     {"object", identity(step)},
                     {"wave", step.wave},
                     {"reason", step.reason}});
  }
  json["steps"] = std::move(steps);
  return json;
}

std::string render_plan_text(const plan::PassPlan& plan, bool prune_enabled) {
  std::size_t prune = plan.count(StepAction::prune), keep = plan.count(StepAction::keep);
  std::string out =
      fmt::format("Next pass: {} to create, {} to update, {} unchanged", plan.count(StepAction::create),
                  plan.count(StepAction::update), plan.count(StepAction::unchanged));
  if (prune > 0) out += fmt::format(", {} to prune{}", prune, prune_enabled ? "" : " (with --prune)");
  if (keep > 0) out += fmt::format(", {} kept", keep);
  out += "\n";
  for (const auto& step : plan.steps) {
    if (step.action == StepAction::unchanged) continue;
    std::string where = step.applies() ? fmt::format("wave {}", step.wave) : "";
    out += fmt::format("  {:<8} {:<9} {}{}\n", where, plan::to_string(step.action), identity(step),
                       step.reason.empty() ? "" : " (" + step.reason + ")");
  }
  return out;
}

}  // namespace opctl::cli
