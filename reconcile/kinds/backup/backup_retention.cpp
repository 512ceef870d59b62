#include "kinds/backup/backup_retention.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kinds/conditions.hpp"

namespace opctl::kinds::backup {
namespace {

using model::Json;

TimePoint time_at(const Json& object, const char* section, const char* field) {
  if (!object.contains(section) || !object[section].is_object()) return {};
  const Json& part = object[section];
  if (!part.contains(field) || !part[field].is_string()) return {};
  return parse_time(part[field].get<std::string>()).value_or(TimePoint{});
}

TimePoint condition_time(const Json* condition) {
  if (condition == nullptr) return {};
  return parse_time(condition->value("lastTransitionTime", "")).value_or(TimePoint{});
}

}  // namespace

BackupRun run_of(const Json& job) {
  BackupRun run;
  run.job = &job;
  run.name = job.contains("metadata") ? job["metadata"].value("name", "") : "";
  run.started = time_at(job, "status", "startTime");
  if (run.started == TimePoint{}) run.started = time_at(job, "metadata", "creationTimestamp");
  if (condition_true(job, "Complete")) {
    run.state = RunState::succeeded;
    run.finished = time_at(job, "status", "completionTime");
    if (run.finished == TimePoint{}) run.finished = condition_time(find_condition(job, "Complete"));
  } else if (condition_true(job, "Failed")) {
    run.state = RunState::failed;
    run.finished = condition_time(find_condition(job, "Failed"));
  }
  if (run.state != RunState::running && run.finished == TimePoint{}) run.finished = run.started;
  return run;
}

std::vector<Deletion> plan_retention(const std::vector<BackupRun>& runs, const RetentionRule& rule,
                                     TimePoint now) {
  std::vector<const BackupRun*> succeeded;
  for (const auto& run : runs)
    if (run.state == RunState::succeeded) succeeded.push_back(&run);
  std::stable_sort(succeeded.begin(), succeeded.end(), [](const BackupRun* a, const BackupRun* b) {
    return a->finished != b->finished ? a->finished > b->finished : a->name > b->name;
  });
  std::optional<TimePoint> cutoff;
  if (rule.max_age) cutoff = now - *rule.max_age;
  std::string age_text = rule.max_age ? format_age(*rule.max_age) : "";
  std::vector<Deletion> deletions;
  for (std::size_t i = 0; i < succeeded.size(); ++i) {
    const BackupRun& run = *succeeded[i];
    if (rule.keep && static_cast<int>(i) >= *rule.keep) {
      deletions.push_back(
          {run.job, run.name, fmt::format("beyond retention: keep {} (newer: {})", *rule.keep, i)});
    } else if (cutoff && run.finished < *cutoff) {
      deletions.push_back(
          {run.job, run.name, fmt::format("beyond retention: older than maxAge {}", age_text)});
    }
  }
  TimePoint newest_success = succeeded.empty() ? TimePoint{} : succeeded.front()->finished;
  for (const auto& run : runs) {
    if (run.state != RunState::failed) continue;
    if (!succeeded.empty() && newest_success > run.finished) {
      deletions.push_back({run.job, run.name, "failed, and a later backup succeeded"});
    } else if (cutoff && run.finished < *cutoff) {
      deletions.push_back({run.job, run.name, fmt::format("failed, and older than maxAge {}", age_text)});
    }
  }
  return deletions;
}

}  // namespace opctl::kinds::backup
