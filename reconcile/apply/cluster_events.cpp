#include "apply/cluster_events.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

#include "kube/rest_mapper.hpp"

namespace opctl::apply {

using model::Json;

namespace {

constexpr std::size_t k_message_limit = 1024;

std::string host_name() {
  char buffer[256] = {};
  return gethostname(buffer, sizeof buffer - 1) == 0 ? std::string(buffer) : std::string("opctl");
}

}  // namespace

Json event_object(const EventSubject& subject, const std::string& type, const std::string& reason,
                  const std::string& message, const std::string& now_rfc3339, long long nanoseconds) {
  std::string text =
      message.size() > k_message_limit ? message.substr(0, k_message_limit - 3) + "..." : message;
  Json involved = {{"apiVersion", subject.api_version},
                   {"kind", subject.kind},
                   {"name", subject.name},
                   {"namespace", subject.namespace_name}};
  if (!subject.uid.empty()) involved["uid"] = subject.uid;
  return {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name", fmt::format("{}.{:x}", subject.name, nanoseconds)}, {"namespace", subject.namespace_name}}},
      {"involvedObject", involved},
      {"type", type},
      {"reason", reason},
      {"message", text},
      {"source", {{"component", "opctl"}}},
      {"reportingComponent", "opctl"},
      {"reportingInstance", host_name()},
      {"firstTimestamp", now_rfc3339},
      {"lastTimestamp", now_rfc3339},
      {"count", 1}};
}

void ClusterEvents::record(const EventSubject& subject, const std::string& type, const std::string& reason,
                           const std::string& message) {
  if (refused_ || subject.name.empty()) return;
  auto now = std::chrono::system_clock::now();
  long long nanoseconds =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  std::string stamp = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(now));
  Json event = event_object(subject, type, reason, message, stamp, nanoseconds);
  auto events = kube::core_v1_resource("Event", "events", true);
  auto result = client_.execute(client_.create_request(events, model::Object(event), false));
  if (result.ok()) return;
  refused_ = true;
  if (on_warning_)
    on_warning_(fmt::format("cannot record Events on {} {}/{}: {} (the pass goes on without them)",
                            subject.kind, subject.namespace_name, subject.name, result.status.describe()));
}

}  // namespace opctl::apply
