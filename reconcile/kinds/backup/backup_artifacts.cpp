#include "kinds/backup/backup_artifacts.hpp"

namespace opctl::kinds::backup {

using model::Json;

namespace {

// The backup container's terminated state, when it exited 0.
const Json* successful_exit(const Json& pod) {
  if (!pod.contains("status") || !pod["status"].is_object()) return nullptr;
  const Json& status = pod["status"];
  if (!status.contains("containerStatuses") || !status["containerStatuses"].is_array()) return nullptr;
  for (const auto& container : status["containerStatuses"]) {
    if (!container.is_object() || container.value("name", "") != "backup") continue;
    if (!container.contains("state") || !container["state"].contains("terminated")) return nullptr;
    const Json& terminated = container["state"]["terminated"];
    if (!terminated.is_object() || terminated.value("exitCode", -1) != 0) return nullptr;
    return &terminated;
  }
  return nullptr;
}

}  // namespace

std::optional<ArtifactReport> artifact_report(const Json& pod) {
  const Json* terminated = successful_exit(pod);
  if (terminated == nullptr || !terminated->contains("message") || !(*terminated)["message"].is_string())
    return std::nullopt;
  Json message = Json::parse((*terminated)["message"].get<std::string>(), nullptr, false);
  if (message.is_discarded() || !message.is_object()) return std::nullopt;
  if (!message.contains("artifact") || !message["artifact"].is_object() || !message.contains("artifacts") ||
      !message["artifacts"].is_array() || !message.contains("artifactCount") ||
      !message["artifactCount"].is_number_integer())
    return std::nullopt;
  ArtifactReport report;
  report.finished = parse_time(terminated->value("finishedAt", "")).value_or(TimePoint{});
  report.artifact = std::move(message["artifact"]);
  report.artifacts = std::move(message["artifacts"]);
  report.count = message["artifactCount"].get<long>();
  return report;
}

}  // namespace opctl::kinds::backup
