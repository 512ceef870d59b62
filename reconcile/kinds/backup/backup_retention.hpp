// Which backup Jobs a Backup keeps: pure decisions from the Jobs' states and
// times, so the rules are tested with a fixed clock.
//
// - Successful Jobs, newest first: the first `keep` stay, the rest go; any
//   that finished before now - maxAge goes (even the newest: "none older
//   than maxAge").
// - A failed Job stays until a later backup succeeds, or until it is older
//   than maxAge, so a failure stays visible until it is superseded.
// - Running Jobs are never deleted.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "kinds/kind_time.hpp"
#include "model/object.hpp"

namespace opctl::kinds::backup {

enum class RunState { running, succeeded, failed };

struct BackupRun {
  const model::Json* job = nullptr;
  std::string name;
  RunState state = RunState::running;
  TimePoint started{};   // status.startTime, else creationTimestamp
  TimePoint finished{};  // completionTime / the Complete or Failed condition's time; for finished runs
};

// A live backup Job's state and times.
BackupRun run_of(const model::Json& job);

struct RetentionRule {
  std::optional<int> keep;
  std::optional<std::chrono::seconds> max_age;
};

struct Deletion {
  const model::Json* job = nullptr;
  std::string name;
  std::string reason;
};

std::vector<Deletion> plan_retention(const std::vector<BackupRun>& runs, const RetentionRule& rule,
                                     TimePoint now);

}  // namespace opctl::kinds::backup
