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
  auto key = object.key();
  if (diff::any_rule_matches(options.ignore_rules, key))  // else nothing to change: the object stays packed
    diff::keep_live_values_of_ignored_fields(object.mutable_body(), *live, key, options.ignore_rules,
                                             options.field_manager);
  if (diff::apply_is_noop(object.body(), *live, options.field_manager)) return StepAction::unchanged;
  if (!source.empty()) object.set_annotation(diff::k_source_annotation, source);
  return StepAction::update;
}

// What decide() makes of a settled object: settles() held, so it is
// unchanged and only opctl.io/source may take its live value.
StepAction keep_settled(Object& object, const SettledObject& settled) {
  Json live = Json::object();
  if (settled.source) live["metadata"]["annotations"][diff::k_source_annotation] = *settled.source;
  diff::carry_source_annotation(object, &live);
  return StepAction::unchanged;
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
      model::PackedAfter packed(object);
      auto settled = live.settled.find(object.key());
      StepAction action = settled != live.settled.end() ? keep_settled(object, settled->second)
                                                        : decide(object, live.find(object.key()), options);
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

bool settles(const Object& desired, const Json& live, const PlanOptions& options) {
  if (diff::any_rule_matches(options.ignore_rules, desired.key())) return false;
  // decide() without an ignore rule: the source annotation carried, then the fast path.
  Json body = desired.body_copy();
  diff::carry_source_annotation(body, &live);
  return diff::apply_is_noop(body, live, options.field_manager);
}

SettledObject settled_object(const Json& live) {
  auto pointer = Json::json_pointer("/metadata/annotations") / diff::k_source_annotation;
  if (live.is_object() && live.contains(pointer) && live.at(pointer).is_string())
    return {live.at(pointer).get<std::string>()};
  return {std::nullopt};
}

void keep_settled_identity(Object& desired) {
  Json body = desired.body_copy();  // decoded once, not unpacked and then replaced
  if (!body.is_object()) return;
  Json identity = Json::object();
  for (const char* field : {"apiVersion", "kind"})
    if (auto found = body.find(field); found != body.end()) identity[field] = std::move(*found);
  if (auto metadata = body.find("metadata"); metadata != body.end() && metadata->is_object()) {
    Json& kept = identity["metadata"] = Json::object();
    for (const char* field : {"name", "namespace", "labels", "annotations"})
      if (auto found = metadata->find(field); found != metadata->end()) kept[field] = std::move(*found);
  }
  desired.set_body(std::move(identity));
  desired.pack();  // as a tree, the identities of 5,000 settled objects were 9 MiB
  desired.forget_field_lines();
}

std::vector<std::string> pruned_names(const std::vector<PlanStep>& steps) {
  std::vector<std::string> names;
  for (const auto& step : steps)
    if (step.action == StepAction::prune) names.push_back(step.key.to_string());
  return names;
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
  // Sized once: growing by doubling held the old and the new array at once,
  // about 3 steps' worth per object at 20,000 objects.
  plan.steps.reserve(plan.objects.size() + (options.prune ? members.size() : 0));
  plan_applies(plan, live, options);
  if (options.prune) plan_prunes(plan, members);
  return plan;
}

}  // namespace opctl::plan
