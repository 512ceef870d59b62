#include "apply/prune_executor.hpp"

#include "apply/prune_guard.hpp"

namespace opctl::apply {
namespace {

using plan::PlanStep;
using plan::StepAction;

// Why a Namespace, a CRD or an object that holds data must stay, or "".
std::string guard_refusal(PassExecution& pass, const PlanStep& step) {
  plan::PruneCandidate candidate{step.live, step.key, false, ""};
  const auto& options = pass.options;
  return prune_refusal(
      pass.client, candidate,
      {options.applyset.id(), options.prune_namespaces, options.prune_crds, options.prune_data});
}

void keep(PassExecution& pass, PruneExecution& result, const PlanStep& step, const std::string& reason) {
  result.kept.group_kinds.insert({step.key.group, step.key.kind});
  if (!step.key.namespace_name.empty() && step.key.namespace_name != pass.options.applyset.namespace_name)
    result.kept.namespaces.insert(step.key.namespace_name);
  pass.record(step, Action::kept, reason);
}

}  // namespace

PruneExecution execute_prune(PassExecution& pass) {
  PruneExecution result;
  for (const auto& step : pass.plan.steps)
    if (step.action == StepAction::keep) keep(pass, result, step, step.reason);
  for (const auto& batch : pass.plan.prune_batches) {
    std::vector<const PlanStep*> sent;
    std::vector<const kube::ResourceInfo*> kinds;  // of each step sent
    BatchKinds batch_kinds(pass.client.mapper());
    for (auto index : batch) {
      const PlanStep& step = pass.plan.steps[index];
      if (pass.stop_now()) {
        pass.record(step, Action::skipped, "not pruned: interrupted");
        continue;
      }
      if (auto refusal = guard_refusal(pass, step); !refusal.empty()) {
        keep(pass, result, step, refusal);
        continue;
      }
      const auto* kind = batch_kinds.find(model::GroupVersionKind::from(step.api_version, step.key.kind));
      if (kind == nullptr) continue;
      sent.push_back(&step);
      kinds.push_back(kind);
    }
    auto request = [&](std::size_t i) {
      return guarded_delete(pass.client, *kinds[i], sent[i]->live, pass.options.delete_propagation);
    };
    auto answer = [&](std::size_t i, kube::ApiResult& reply) {
      auto outcome = delete_outcome(reply);
      result.all_deleted = result.all_deleted && outcome.action != Action::failed;
      pass.record(*sent[i], outcome.action,
                  outcome.message.empty() ? "" : "prune (delete) failed: " + outcome.message);
    };
    auto done = stream_writes(pass.client, sent.size(), request, answer, [&pass] { return pass.stop_now(); });
    for (auto i = done; i < sent.size(); ++i)
      pass.record(*sent[i], Action::skipped, "not pruned: interrupted");
  }
  if (!result.all_deleted) pass.fail(PassResult::failed, "some objects could not be pruned");
  if (pass.report().result == PassResult::interrupted) result.all_deleted = false;
  return result;
}

void report_plan(PassExecution& pass) {
  for (const auto& step : pass.plan.steps) {
    switch (step.action) {
      case StepAction::create:
        pass.record(step, Action::planned_create);
        break;
      case StepAction::update:
        pass.record(step, Action::planned_update);
        break;
      case StepAction::unchanged:
        pass.record(step, Action::unchanged);
        break;
      case StepAction::keep:
        pass.record(step, Action::kept, step.reason);
        break;
      case StepAction::prune:
        if (auto refusal = guard_refusal(pass, step); !refusal.empty()) {
          pass.record(step, Action::kept, refusal);
        } else {
          pass.record(step, Action::planned_prune);
        }
        break;
    }
  }
}

}  // namespace opctl::apply
