// One custom resource, one round of the KindRunner: read the parent, its
// children (from the round's lists, round_reads.hpp) and the related
// objects, call reconcile(), write the children (child_writer.hpp), the
// status subresource with observedGeneration and conditions, and the
// finalizers, and the Events the reconciler asked for, on the parent. Internal
// to the kinds layer.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "apply/write_batch.hpp"
#include "kinds/kind_reconciler.hpp"
#include "kinds/owned_objects.hpp"
#include "kinds/round_reads.hpp"

namespace opctl::kinds {

// A custom resource the runner reconciles.
struct RunnerTarget {
  KindReconciler* reconciler = nullptr;
  model::ObjectKey key;
  std::string api_version;
  model::SourceLocation location;
  long wave = 0;
};

// Where a target stands after a round.
struct TargetState {
  bool ready = false;
  bool failed = false;  // Degraded, or the runner could not reconcile it
  bool gone = false;    // the parent no longer exists (or finished finalizing)
  std::optional<std::chrono::seconds> requeue;
  std::string summary;
  std::string emitted;  // the summary last shown
};

struct ResourcePassOptions {
  std::string delete_propagation = "Background";
  bool first_round = true;
  std::function<bool()> stop_requested;
};

class ResourcePass {
 public:
  ResourcePass(kube::ApiClient& client, RoundReads& reads, Context& context, const RunnerTarget& target,
               apply::OutcomeLog& log, ResourcePassOptions options)
      : client_(client),
        reads_(reads),
        context_(context),
        target_(target),
        log_(log),
        options_(std::move(options)) {}

  TargetState run();

 private:
  void read_children();
  void read_related();
  TargetState write(const ReconcileResult& result);
  bool write_finalizers(const ReconcileResult& result);
  // Records the result's Events; what kept them from being recorded, or empty.
  std::string record_events(const ReconcileResult& result);
  bool write_status(const model::Json& status);
  model::Json status_of(const ReconcileResult& result) const;
  TargetState degrade(const std::string& reason, const std::string& message);

  kube::ApiClient& client_;
  RoundReads& reads_;
  Context& context_;
  const RunnerTarget& target_;
  apply::OutcomeLog& log_;
  ResourcePassOptions options_;
  kube::ResourceInfo resource_;
  Observed observed_;
  ParentRef parent_;
  std::string write_error_;
};

}  // namespace opctl::kinds
