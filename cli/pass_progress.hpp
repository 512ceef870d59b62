// What `opctl reconcile`, `diff` and `fetch` show while they work (the text of
// progress.hpp's live line and periodic lines), and the per-kind summary that
// replaces one `unchanged` line per object.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "apply/apply_pass.hpp"
#include "common_options.hpp"
#include "progress.hpp"
#include "source/desired_source.hpp"

namespace opctl::cli {

using UnhealthyObjects = std::vector<std::pair<model::ObjectKey, apply::HealthStatus>>;

// Before the first wave: "planning: reading the live state of 60 objects".
ProgressStatus planning_status(std::size_t total);
// "wave 1: applying 40 objects, 15/60 done".
ProgressStatus applying_status(long wave, std::size_t wave_objects, std::size_t done, std::size_t total);
// "wave 1: waiting for 2 objects, 15/60 done": the first one and why, and how many more.
ProgressStatus waiting_status(long wave, const UnhealthyObjects& unhealthy, std::size_t done,
                              std::size_t total);
// "pruning 3 objects, 60/60 done", after the waves.
ProgressStatus pruning_status(std::size_t candidates, std::size_t done, std::size_t total);
// A custom-kind runner's "waiting for opctl.io/Cluster shop/db: ..." line; without one, that the
// custom resources are being reconciled.
ProgressStatus custom_kinds_status(const std::string& waiting_for, std::size_t done, std::size_t total);
// "fetching URL": objects received of the total and bytes, then deltas resolved.
ProgressStatus transfer_status(const source::TransferProgress& progress);
// True once every object arrived and every delta was resolved.
bool transfer_finished(const source::TransferProgress& progress);

// While it lives, the fetches of `source` show their transfer on `display`,
// and the source's warnings print above its live line (unless `quiet`); the
// callbacks that were there before come back when it goes.
class SourceProgress {
 public:
  SourceProgress(source::SourceOptions& source, ProgressDisplay& display, bool quiet);
  ~SourceProgress();
  SourceProgress(const SourceProgress&) = delete;
  SourceProgress& operator=(const SourceProgress&) = delete;

 private:
  source::SourceOptions& source_;
  std::function<void(const source::TransferProgress&)> on_transfer_;
  std::function<void(const std::string&)> on_warning_;
};

// The progress a command's -q, -v and --progress-interval ask for.
ProgressSettings progress_settings(const CommonOptions& common);

// A display that shows only the fetches of `common.source`: for the commands
// whose only long wait is loading the set (status, tree, validate, history, install).
class FetchProgress {
 public:
  explicit FetchProgress(CommonOptions& common)
      : display_(progress_settings(common)), progress_(common.source, display_, common.quiet) {}

 private:
  ProgressDisplay display_;
  SourceProgress progress_;
};

// "1.5 MiB", "12.0 KiB", "300 B".
std::string byte_size_text(std::size_t bytes);

// Counts unchanged objects per kind instead of a line each (unless -v). An
// unchanged outcome with something to say (a custom resource's state, the
// owner of a child) keeps its line.
class UnchangedSummary {
 public:
  // True when the outcome is counted here rather than printed.
  bool absorb(const apply::ObjectOutcome& outcome);
  // One line per kind, by kind: "ConfigMap: 120 unchanged", "apps/Deployment: 3 unchanged".
  std::vector<std::string> lines() const;

 private:
  std::map<std::string, std::size_t> counts_;
};

}  // namespace opctl::cli
