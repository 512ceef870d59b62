// A run as Prometheus metrics: the text exposition format (version 0.0.4), which node-exporter's textfile
// collector reads and a Pushgateway accepts. Pure: the CLI gathers the data and writes or pushes the text.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apply/pass_report.hpp"

namespace opctl::apply {

// One instance of a Cluster as its status reports it (instanceStates).
struct InstanceMetrics {
  std::string name;
  bool ready = false;
  std::optional<std::uint64_t> lag_bytes;  // replicas only, when both LSNs are known
};

// One Cluster of the set, from its live status after the pass.
struct ClusterMetrics {
  std::string namespace_name;
  std::string name;
  int instances = 0;
  int ready_instances = 0;
  std::string primary;  // currentPrimary; empty while there is none
  std::vector<InstanceMetrics> instance_states;
  // The newest lastSuccessfulTime of the Backups naming this Cluster; nullopt when none has succeeded.
  std::optional<std::chrono::system_clock::time_point> last_backup;
};

// What the metrics need of a pass: its result and how many objects each action touched. A dry run's planned
// steps count under the action they would be (opctl_run_dry_run tells them apart).
struct PassCounts {
  PassResult result = PassResult::succeeded;
  bool dry_run = false;
  std::map<Action, std::size_t> objects;

  static PassCounts of(const PassReport& report);
};

struct RunMetrics {
  std::string set;  // the set's name (opctl.yaml's metadata.name, --name, or "default")
  std::chrono::system_clock::time_point started;
  std::chrono::milliseconds duration{0};
  int exit_code = 0;
  // The pass, when one ran; a run that stopped before it (the set did not load, the Lease was held) has none.
  std::optional<PassCounts> pass;
  // Why a run without a pass failed ("invalid-input", "lock-held", ...): its result label.
  std::string result_without_pass;
  // How long taking the set's Lease took; nullopt when none was taken (a dry run, the Lease turned off).
  std::optional<std::chrono::milliseconds> lease_wait;
  std::vector<ClusterMetrics> clusters;
};

// Every result a run can end with, in the order opctl_run_result lists them: a pass's
// (to_string(PassResult)), then the error categories that stop a run before its pass.
inline constexpr std::array<std::string_view, 8> k_run_results = {
    "succeeded",   "failed",        "timed-out",     "unhealthy",
    "interrupted", "invalid-input", "cluster-error", "lock-held"};

// The metrics of `run`, each with # HELP and # TYPE, every sample labelled with the set.
std::string render_metrics(const RunMetrics& run);

}  // namespace opctl::apply
