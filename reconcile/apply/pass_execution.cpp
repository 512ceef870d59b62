#include "apply/pass_execution.hpp"

namespace opctl::apply {

bool PassExecution::stop_now() {
  if (report().result == PassResult::interrupted) return true;
  if (!options.stop_requested || !options.stop_requested()) return false;
  PassReport& pass = report();
  pass.result = PassResult::interrupted;
  pass.message = "interrupted (SIGTERM or SIGINT): stopped after the requests in flight";
  return true;
}

void PassExecution::fail(PassResult result, std::string message) {
  PassReport& pass = report();
  if (pass.result != PassResult::succeeded) return;
  pass.result = result;
  pass.message = std::move(message);
}

void PassExecution::record(const plan::PlanStep& step, Action action, std::string message) {
  // Prune outcomes carry no source location and wave: the object is no longer in git.
  bool in_set = step.action != plan::StepAction::prune && step.action != plan::StepAction::keep;
  model::SourceLocation location = in_set ? plan.objects[step.object].location() : model::SourceLocation{};
  log.record({step.key, step.api_version, location, in_set ? step.wave : 0, action, std::move(message), {}});
}

void PassExecution::amend(const plan::PlanStep& step, Action action, const std::string& message) {
  for (auto& outcome : report().outcomes)
    if (outcome.key == step.key) {
      outcome.action = action;
      outcome.message = message;
    }
}

}  // namespace opctl::apply
