// Applies the plan's waves: batch by batch (one kind rank at a time,
// concurrently within it), CRDs waited for until Established before the
// custom resources of the next batch, health waited for between waves with
// --wait. A failed object does not stop the rest of its wave; later waves are
// skipped (they may depend on it), as the README says.
#pragma once

#include <map>

#include "apply/pass_execution.hpp"

namespace opctl::apply {

class WaveExecutor {
 public:
  explicit WaveExecutor(PassExecution& pass) : pass_(pass) {}

  void run(const plan::PlanWave& wave);

 private:
  bool apply_batch(const plan::ApplyBatch& batch);
  bool wait_for_crds(const plan::ApplyBatch& batch);
  void wait_for_health(const plan::PlanWave& wave);
  const model::Json* crd_now(const model::ObjectKey& key) const;

  PassExecution& pass_;
  std::map<model::ObjectKey, model::Json> applied_crds_;  // the server's answers to CRD applies
};

}  // namespace opctl::apply
