#include "plan/pass_plan.hpp"

#include <algorithm>
#include <set>

#include "diff/field_ownership.hpp"
#include "diff/normalize.hpp"
#include "plan/apply_order.hpp"
#include "plan/kind_scopes.hpp"
#include "plan/prune_set.hpp"

namespace opctl::plan {
namespace {

using model::Json;
using model::Object;

// Settles what the object is sent as and decides its step. opctl.io/source
// keeps its live value unless the object changes anyway.
StepAction decide(Object& object, const Json* live, const PlanOptions& options) {
  std::string source = object.annotation(diff::k_source_annotation);
  diff::carry_source_annotation(object, live);
  if (live == nullptr) return StepAction::create;
  diff::keep_live_values_of_ignored_fields(object.body(), *live, object.key(), options.ignore_rules,
                                           options.field_manager);
  if (diff::apply_is_noop(object.body(), *live, options.field_manager)) return StepAction::unchanged;
  if (!source.empty()) object.set_annotation(diff::k_source_annotation, source);
  return StepAction::update;
}

const char* reason_of(StepAction action) {
  switch (action) {
    case StepAction::create:
      return "not in the cluster";
    case StepAction::update:
      return "the live object differs";
    case StepAction::unchanged:
      return "";
    case StepAction::prune:
      return "no longer in the set";
    case StepAction::keep:
      return "";
  }
  return "";
}

bool skips_health(const Object& object, const PlanOptions& options) {
  auto gvk = object.gvk();
  return std::any_of(options.skip_health.begin(), options.skip_health.end(),
                     [&](const auto& rule) { return rule.first == gvk.group && rule.second == gvk.kind; });
}

void plan_applies(PassPlan& plan, const LiveObjects& live, const PlanOptions& options) {
  for (const auto& group : order_for_apply(plan.objects)) {
    if (plan.waves.empty() || plan.waves.back().wave != group.wave)
      plan.waves.push_back({group.wave, {}, {}});
    PlanWave& wave = plan.waves.back();
    ApplyBatch batch{group.rank, {}, false};
    for (auto index : group.members) {
      Object& object = plan.objects[index];
      auto found = live.find(object.key());
      StepAction action = decide(object, found == live.end() ? nullptr : &found->second, options);
      batch.waits_for_crds = batch.waits_for_crds || is_crd(object.gvk());
      batch.steps.push_back(plan.steps.size());
      if (options.wait && !skips_health(object, options)) wave.health_waits.push_back(plan.steps.size());
      plan.steps.push_back(
          {action, object.key(), object.api_version(), group.wave, group.rank, reason_of(action), index, {}});
    }
    wave.batches.push_back(std::move(batch));
  }
}

void plan_prunes(PassPlan& plan, const std::vector<Json>& members) {
  std::set<model::ObjectKey> desired;
  for (const auto& object : plan.objects)
    desired.insert(object.key());
  int batch_rank = -1;
  for (auto& step : prune_steps(members, desired)) {
    if (step.action == StepAction::prune) {
      if (plan.prune_batches.empty() || step.rank != batch_rank) plan.prune_batches.emplace_back();
      plan.prune_batches.back().push_back(plan.steps.size());
      batch_rank = step.rank;
    }
    plan.steps.push_back(std::move(step));
  }
}

}  // namespace

const char* to_string(StepAction action) {
  switch (action) {
    case StepAction::create:
      return "create";
    case StepAction::update:
      return "update";
    case StepAction::unchanged:
      return "unchanged";
    case StepAction::prune:
      return "prune";
    case StepAction::keep:
      return "keep";
  }
  return "unknown";
}

std::size_t PassPlan::count(StepAction action) const {
  return static_cast<std::size_t>(
      std::count_if(steps.begin(), steps.end(), [&](const PlanStep& step) { return step.action == action; }));
}

std::vector<PlanStep> prune_steps(const std::vector<Json>& members,
                                  const std::set<model::ObjectKey>& desired) {
  std::vector<PlanStep> steps;
  for (auto& candidate : prune_candidates(members, desired)) {
    std::string api_version = candidate.live.value("apiVersion", "");
    int rank = kind_rank(model::GroupVersionKind::from(api_version, candidate.key.kind));
    StepAction action = candidate.kept ? StepAction::keep : StepAction::prune;
    std::string reason = candidate.kept ? candidate.reason : reason_of(action);
    steps.push_back({action, candidate.key, api_version, wave_of_live(candidate.live), rank,
                     std::move(reason), 0, std::move(candidate.live)});
  }
  return steps;
}

PassPlan make_pass_plan(std::vector<Object> desired, const LiveObjects& live,
                        const std::vector<Json>& members, const PlanOptions& options) {
  PassPlan plan;
  plan.objects = std::move(desired);
  plan_applies(plan, live, options);
  if (options.prune) plan_prunes(plan, members);
  return plan;
}

}  // namespace opctl::plan
