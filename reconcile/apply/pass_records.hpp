// What a pass leaves behind besides its changes: the run record on the
// ApplySet parent (opctl status reads it) and the Events on the parent
// (kubectl describe and kubectl events show them).
#pragma once

#include <chrono>
#include <string>

#include "apply/cluster_events.hpp"
#include "apply/pass_report.hpp"

namespace opctl::apply {

// A run's result and its counts (created, configured, unchanged, pruned,
// failed): what the last-run record and each history entry say alike.
model::Json run_counts(const PassReport& report);

// The opctl.io/last-run annotation's JSON: revision, time, result, counts.
std::string last_run_record(const PassReport& report, const std::string& revision,
                            std::chrono::system_clock::time_point now);

// "ReconcileStarted" with the number of objects.
void record_pass_started(ClusterEvents& events, const EventSubject& subject, const std::string& revision,
                         std::size_t objects);

// "ReconcileSucceeded" with the counts, or "ReconcileFailed"/"ReconcileTimedOut"
// with the reason and the first failed object.
void record_pass_finished(ClusterEvents& events, const EventSubject& subject, const PassReport& report,
                          const std::string& revision);

}  // namespace opctl::apply
