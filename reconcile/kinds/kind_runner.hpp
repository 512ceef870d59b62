// Runs the custom-kind reconcilers after the apply pass: for every custom
// resource of a registered kind in the desired set, and every live member of
// the set that is being deleted while it still carries a finalizer of the
// controller's field manager, it reads the parent, its children (by the
// owner-uid label) and the related objects, calls
// reconcile(), then writes the result with field manager opctl-controller:
// server-side applies the children (controller ownerReference, owner-uid
// label; create-only children only when missing), deletes owned children no
// longer listed (unless keep_unlisted) and the explicit deletions, applies
// metadata.finalizers, and applies the status subresource with
// observedGeneration and conditions.
//
// Reads are shared by the resources of a round (round_reads.hpp): each
// kind a round needs is listed once per namespace, so a pass over many
// custom resources costs requests per kind, not per resource and child kind.
//
// Each resource's outcome lands in the pass report: children as their own
// outcomes (created / configured / unchanged / pruned / failed), the parent's
// outcome gets its Ready or Degraded message and becomes `failed` when it is
// Degraded or could not be reconciled. A failure in one resource never stops
// the others. With `wait`, rounds repeat while a resource is not Ready and
// asked for a requeue, until the deadline (then the pass is timed-out).
//
// The runner reads every parent from the server, so it always works from the
// live spec: a desired resource whose apply failed or was skipped is
// reconciled as it stands (its outcome says so), and run_live() reconciles
// the set's live members when the set itself could not be loaded.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "apply/apply_pass.hpp"
#include "kinds/kind_registry.hpp"
#include "kinds/resource_pass.hpp"
#include "kube/api_client.hpp"

namespace opctl::kinds {

struct RunnerOptions {
  std::string applyset_id;  // members carry applyset.kubernetes.io/part-of=<id>
  bool wait = false;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  std::string delete_propagation = "Background";
  std::function<void(const apply::ObjectOutcome&)> on_outcome;
  std::function<void(const std::string&)> on_waiting;  // one line: what the wait is for
  // True once the run should stop (SIGTERM/SIGINT): no further resource is
  // started and the wait ends.
  std::function<bool()> stop_requested;
  // Where the rounds read the time and sleep; null: the system clock.
  const Clock* clock = nullptr;
};

class KindRunner {
 public:
  KindRunner(kube::ApiClient& client, const KindRegistry& registry, Context context, RunnerOptions options);

  // Reconciles the custom resources of `desired` (namespaces already
  // defaulted) and the finalizing members; records into `report`. A desired
  // resource whose outcome in `report` is failed or skipped (its apply did
  // not happen) is reconciled from its live spec when it exists.
  void run(const std::vector<model::Object>& desired, apply::PassReport& report);

  // Reconciles `members` (the set's live custom resources) from their live
  // spec: the set could not be loaded, so nothing of it is applied; each parent's outcome
  // is `unchanged`, with what its reconciler reported.
  void run_live(const std::vector<model::Object>& members, apply::PassReport& report);

 private:
  struct Target {
    RunnerTarget runner;
    // Put before the reconciler's summary in the parent's outcome: why it was
    // reconciled from its live spec ("" when it was applied).
    std::string note;
    // The parent's outcome when the pass recorded none for it.
    apply::Action action = apply::Action::configured;
  };

  std::vector<Target> targets(const std::vector<model::Object>& desired, const apply::PassReport& report);
  void finalizing_members(std::vector<Target>& found);
  void reconcile(const std::vector<Target>& found, apply::PassReport& report);
  void record_parent(const Target& target, TargetState& state, apply::PassReport& report);
  bool stopping() const { return options_.stop_requested && options_.stop_requested(); }
  // Sleeps until `wake`, waking early when the run should stop.
  void sleep_until(std::chrono::steady_clock::time_point wake, const Clock& clock) const;

  kube::ApiClient& client_;
  const KindRegistry& registry_;
  Context context_;
  RunnerOptions options_;
};

// The members of the set (applyset.kubernetes.io/part-of=<applyset_id>) of
// every registered kind the server serves, as they are live, across
// namespaces. A kind the caller may not list across namespaces is left out.
std::vector<model::Object> live_members(kube::ApiClient& client, const KindRegistry& registry,
                                        const std::string& applyset_id);

}  // namespace opctl::kinds
