// What the parts of a pass's execution share (apply_pass.cpp runs it,
// wave_executor.cpp applies the waves, prune_executor.cpp deletes): the plan,
// live state, the report and how a step's outcome is recorded. Internal to
// the apply layer.
#pragma once

#include <chrono>
#include <string>

#include "apply/apply_pass.hpp"
#include "apply/live_state.hpp"
#include "apply/write_batch.hpp"
#include "model/clock.hpp"
#include "plan/pass_plan.hpp"

namespace opctl::apply {

struct PassExecution {
  kube::ApiClient& client;
  const PassOptions& options;
  const Clock& clock;
  const plan::PassPlan& plan;
  const LiveState& live;
  OutcomeLog& log;
  std::chrono::steady_clock::time_point deadline;

  PassReport& report() { return log.report(); }

  // True once SIGTERM/SIGINT arrived: the pass is then interrupted and sends
  // no more batches (the one in flight has finished).
  bool stop_now();
  // The pass's first failure is the one it reports.
  void fail(PassResult result, std::string message);
  void record(const plan::PlanStep& step, Action action, std::string message = "");
  // Changes an outcome already recorded (a CRD applied, then not Established).
  void amend(const plan::PlanStep& step, Action action, const std::string& message);
};

}  // namespace opctl::apply
