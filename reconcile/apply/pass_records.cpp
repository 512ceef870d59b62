#include "apply/pass_records.hpp"

#include <fmt/format.h>

#include "apply/lease_lock.hpp"

namespace opctl::apply {
namespace {

std::string revision_note(const std::string& revision) {
  return revision.empty() ? "" : " from " + revision;
}

}  // namespace

model::Json run_counts(const PassReport& report) {
  return {{"result", to_string(report.result)},
          {"created", report.count(Action::created)},
          {"configured", report.count(Action::configured)},
          {"unchanged", report.count(Action::unchanged)},
          {"pruned", report.count(Action::pruned)},
          {"failed", report.count(Action::failed)}};
}

std::string last_run_record(const PassReport& report, const std::string& revision,
                            std::chrono::system_clock::time_point now) {
  model::Json record = run_counts(report);
  record["revision"] = revision;
  record["time"] = format_micro_time(now).substr(0, 19) + "Z";
  if (!report.message.empty()) record["message"] = report.message;
  return record.dump();
}

void record_pass_started(ClusterEvents& events, const EventSubject& subject, const std::string& revision,
                         std::size_t objects) {
  events.record(subject, "Normal", "ReconcileStarted",
                fmt::format("pass started{}: {} objects", revision_note(revision), objects));
}

void record_pass_finished(ClusterEvents& events, const EventSubject& subject, const PassReport& report,
                          const std::string& revision) {
  std::string counts = fmt::format("{} created, {} configured, {} unchanged, {} pruned, {} failed",
                                   report.count(Action::created), report.count(Action::configured),
                                   report.count(Action::unchanged), report.count(Action::pruned),
                                   report.count(Action::failed));
  if (report.result == PassResult::succeeded) {
    events.record(subject, "Normal", "ReconcileSucceeded",
                  fmt::format("applied{}: {}", revision_note(revision), counts));
    return;
  }
  std::string reason = report.result == PassResult::timed_out ? "ReconcileTimedOut" : "ReconcileFailed";
  std::string why = report.message.empty() ? "" : report.message + "; ";
  for (const auto& outcome : report.outcomes)
    if (outcome.action == Action::failed) {
      why += fmt::format("{}: {}; ", outcome.key.to_string(), outcome.message);
      break;
    }
  events.record(subject, "Warning", reason, fmt::format("{}{}{}", why, counts, revision_note(revision)));
}

}  // namespace opctl::apply
