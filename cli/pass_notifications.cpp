#include "pass_notifications.hpp"

#include <cstdlib>
#include <iostream>

#include "notify/notifier.hpp"

namespace opctl::cli {
namespace {

constexpr std::size_t k_failures_sent = 5;
constexpr std::size_t k_message_sent = 2000;  // a load error lists every problem

notify::PassEvent pass_event(const CommonOptions& options, const apply::PassReport& report,
                             const source::SourceRevision& revision) {
  using apply::Action;
  notify::PassEvent event;
  event.set_name = options.set_named ? options.config.name : "";
  event.result = apply::to_string(report.result);
  event.message = report.message;
  event.repo = revision.repo;
  event.ref = revision.ref;
  event.commit = revision.commit;
  event.path = revision.path;
  event.created = report.count(Action::created);
  event.configured = report.count(Action::configured);
  event.pruned = report.count(Action::pruned);
  event.unchanged = report.count(Action::unchanged);
  event.failed = report.count(Action::failed);
  for (const auto& outcome : report.outcomes)
    if (outcome.action == Action::failed && event.failures.size() < k_failures_sent)
      event.failures.push_back({outcome.key.to_string(), outcome.message});
  event.started = report.started;
  event.duration = report.duration;
  return event;
}

// An opctl.yaml found in a git source came with the commit, not from whoever runs opctl.
bool config_from_commit(const CommonOptions& options) {
  return options.config_file.empty() && !options.source.repo.empty() && !options.config.file.empty();
}

void send(const CommonOptions& options, const notify::PassEvent& event,
          const std::function<void(const std::string&)>& warn) {
  const auto& entries = options.config.notifications;
  if (entries.empty()) return;
  if (config_from_commit(options)) {
    warn(options.config.file +
         ": spec.notifications of an opctl.yaml inside a git source are not sent (the commit could send "
         "credentials anywhere): put them in a -f file");
    return;
  }
  SystemClock clock;
  std::unique_ptr<notify::HttpPoster> poster = notify::curl_poster();
  notify::NotifierOptions notifier;
  notifier.poster = poster.get();
  notifier.clock = &clock;
  notifier.config_file = options.config.file;
  notifier.environment = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  notifier.on_warning = warn;
  if (options.verbose) notifier.on_sent = [](const std::string& line) { std::cerr << line << "\n"; };
  notify::send_notifications(entries, event, notifier);
}

}  // namespace

void notify_pass(const CommonOptions& options, const apply::PassReport& report,
                 const source::SourceRevision& revision,
                 const std::function<void(const std::string&)>& warn) {
  if (report.dry_run) return;
  send(options, pass_event(options, report, revision), warn);
}

void notify_load_failure(const CommonOptions& options, const Error& error,
                         const std::function<void(const std::string&)>& warn) {
  if (options.config.notifications.empty()) return;
  notify::PassEvent event;
  event.set_name = options.set_named ? options.config.name : "";
  event.result = apply::to_string(apply::PassResult::failed);
  std::string message = error.what();
  event.message = message.size() > k_message_sent ? message.substr(0, k_message_sent) + "..." : message;
  event.started = std::chrono::system_clock::now();
  if (error.category() == ErrorCategory::invalid_input) {
    try {
      source::SourceRevision revision = source::fetch_desired_source(options.source);
      event.repo = revision.repo;
      event.ref = revision.ref;
      event.commit = revision.commit;
      event.path = revision.path;
    } catch (const Error&) {
      // No commit to name: the message still goes out, a commit status is a warning.
    }
  }
  send(options, event, warn);
}

}  // namespace opctl::cli
