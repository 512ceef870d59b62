// One reconcile pass over a validated desired set: plan (create / update /
// unchanged / prune) from live state, then apply wave by wave in kind order,
// wait for health when asked, prune what left the set, and keep the ApplySet
// inventory in step. Per-object outcomes are data in the report.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apply/pass_report.hpp"
#include "apply/prune_limits.hpp"
#include "apply/run_history.hpp"
#include "apply/set_pin.hpp"
#include "diff/ignore_rules.hpp"
#include "kube/api_client.hpp"
#include "model/clock.hpp"
#include "model/object.hpp"
#include "plan/applyset.hpp"

namespace opctl::apply {

// What the pass reports as it goes (progress lines).
struct PassEvents {
  std::function<void(const ObjectOutcome&)> on_outcome;
  std::function<void(long wave, std::size_t objects)> on_wave_start;
  std::function<void(long wave, const std::vector<std::pair<model::ObjectKey, HealthStatus>>&)> on_waiting;
  std::function<void(const std::string&)> on_warning;
  // After the waves: the prune of `candidates` objects begins, then the custom kinds' reconcilers.
  std::function<void(std::size_t candidates)> on_prune_start;
  std::function<void()> on_custom_kinds_start;
};

struct PassOptions {
  kube::ApplyOptions apply;
  bool dry_run = false;
  bool prune = false;
  bool prune_namespaces = false;
  bool prune_crds = false;   // also prune CRDs whose custom resources of other sets remain
  bool prune_data = false;   // also prune PersistentVolumeClaims and Clusters (prune_guard.hpp)
  PruneLimits prune_limits;  // an empty source, a mass deletion (prune_limits.hpp)
  // Where this run's desired set comes from (set_source.hpp); a pruning pass
  // refuses a set recorded from another source unless take_over.
  std::string source;
  bool take_over = false;
  std::string delete_propagation = "Background";
  bool wait = false;
  // How long --wait may take in all; 0: check health once, never wait (kubectl wait --timeout=0).
  std::chrono::milliseconds timeout{300'000};
  std::chrono::seconds crd_established_timeout{60};
  std::vector<std::pair<std::string, std::string>> skip_health;  // (group, kind)
  // opctl.yaml's ignoreDifferences: on existing objects these fields keep
  // their live values, so a pass never fights the actor that owns them.
  std::vector<diff::IgnoreRule> ignore_rules;
  plan::ApplySetParent applyset;
  std::string tooling;   // applyset.kubernetes.io/tooling, "opctl/<version>"
  std::string revision;  // recorded as the last run
  RunOrigin origin;      // recorded in the set's history (run_history.hpp)
  // The set's pin (set_pin.hpp): kept, set by a rollback, or lifted; recorded
  // with the inventory before anything changes.
  PinAction pin;
  PassEvents events;
  // Runs after the waves and prune (never in a dry run, nor once the pass is
  // interrupted), before the last run is recorded: the custom-kind
  // reconcilers, plugged in by the CLI so apply does not depend on kinds.
  // It also runs when an object of the set failed, timed out or stayed
  // unhealthy: the custom resources that exist keep being reconciled (the
  // report says which were not applied), and the pass stays failed.
  std::function<void(PassReport&)> run_custom_kinds;
  // True once the pass should stop (SIGTERM/SIGINT): checked before every
  // batch of writes; the pass then records itself interrupted and returns.
  std::function<bool()> stop_requested;
  // Where the pass reads the time and sleeps; null: the system clock.
  const Clock* clock = nullptr;
};

// Runs the pass. Throws only for failures that stop everything (reading
// live state, writing the inventory, a lost Lease from the client's write
// gate); per-object failures are in the report.
PassReport run_apply_pass(kube::ApiClient& client, std::vector<model::Object> objects,
                          const PassOptions& options);

}  // namespace opctl::apply
