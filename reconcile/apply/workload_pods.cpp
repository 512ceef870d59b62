#include "apply/workload_pods.hpp"

#include <fmt/format.h>

#include <array>

namespace opctl::apply {
namespace {

using model::Json;

// Waiting reasons that need a change (to the spec, the image or the
// registry), not more time.
constexpr std::array<const char*, 6> k_blocking_reasons = {
    "CrashLoopBackOff",  "ImagePullBackOff",           "ErrImagePull",
    "ErrImageNeverPull", "CreateContainerConfigError", "InvalidImageName"};

bool is_blocking(const std::string& reason) {
  for (const char* blocking : k_blocking_reasons)
    if (reason == blocking) return true;
  return false;
}

std::string kind_of(const Json& object) {
  return object.value("kind", "");
}

const Json& metadata(const Json& object) {
  static const Json k_empty = Json::object();
  return object.contains("metadata") && object["metadata"].is_object() ? object["metadata"] : k_empty;
}

std::string annotation(const Json& object, const std::string& key) {
  const Json& meta = metadata(object);
  if (!meta.contains("annotations") || !meta["annotations"].is_object()) return "";
  return meta["annotations"].value(key, "");
}

std::string label(const Json& object, const std::string& key) {
  const Json& meta = metadata(object);
  if (!meta.contains("labels") || !meta["labels"].is_object()) return "";
  return meta["labels"].value(key, "");
}

bool controlled_by(const Json& object, const std::string& uid) {
  const Json& meta = metadata(object);
  for (const auto& owner : meta.value("ownerReferences", Json::array()))
    if (owner.value("uid", "") == uid && owner.value("controller", false)) return true;
  return false;
}

// The uid of the ReplicaSet that runs the Deployment's current revision.
std::string current_replica_set(const Json& deployment, const std::vector<Json>& replica_sets) {
  const std::string revision_key = "deployment.kubernetes.io/revision";
  std::string revision = annotation(deployment, revision_key);
  std::string uid = metadata(deployment).value("uid", "");
  if (revision.empty()) return "";
  for (const auto& set : replica_sets)
    if (controlled_by(set, uid) && annotation(set, revision_key) == revision)
      return metadata(set).value("uid", "");
  return "";
}

// Whether a Pod belongs to the revision the workload is rolling out.
bool in_current_revision(const Json& workload, const std::vector<Json>& replica_sets, const Json& pod) {
  std::string kind = kind_of(workload);
  if (kind == "Deployment") {
    std::string set_uid = current_replica_set(workload, replica_sets);
    return !set_uid.empty() && controlled_by(pod, set_uid);
  }
  if (!controlled_by(pod, metadata(workload).value("uid", ""))) return false;
  if (kind == "StatefulSet") {
    std::string update = workload.contains("status") ? workload["status"].value("updateRevision", "") : "";
    return update.empty() || label(pod, "controller-revision-hash") == update;
  }
  return true;
}

}  // namespace

std::optional<std::string> workload_pod_selector(const Json& workload) {
  std::string kind = kind_of(workload);
  if (kind != "Deployment" && kind != "StatefulSet" && kind != "DaemonSet" && kind != "Job")
    return std::nullopt;
  if (!workload.contains("spec") || !workload["spec"].contains("selector")) return std::nullopt;
  const Json& match = workload["spec"]["selector"].value("matchLabels", Json::object());
  if (!match.is_object() || match.empty()) return std::nullopt;
  std::string selector;
  for (const auto& [key, value] : match.items()) {
    if (!value.is_string()) return std::nullopt;
    selector += (selector.empty() ? "" : ",") + key + "=" + value.get<std::string>();
  }
  return selector;
}

bool workload_needs_replica_sets(const Json& workload) {
  return kind_of(workload) == "Deployment";
}

std::optional<std::string> blocked_container(const Json& pod) {
  if (!pod.contains("status")) return std::nullopt;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const auto& container : pod["status"].value(list, Json::array())) {
      if (!container.contains("state") || !container["state"].contains("waiting")) continue;
      const Json& waiting = container["state"]["waiting"];
      std::string reason = waiting.value("reason", "");
      if (!is_blocking(reason)) continue;
      std::string message = waiting.value("message", "");
      return fmt::format("container {}: {}{}", container.value("name", ""), reason,
                         message.empty() ? "" : ": " + message);
    }
  }
  return std::nullopt;
}

HealthStatus assess_workload_pods(const Json& workload, const std::vector<Json>& replica_sets,
                                  const std::vector<Json>& pods) {
  for (const auto& pod : pods) {
    if (metadata(pod).contains("deletionTimestamp")) continue;
    if (!in_current_revision(workload, replica_sets, pod)) continue;
    if (auto reason = blocked_container(pod))
      return {HealthState::failed, fmt::format("Pod {}: {}", metadata(pod).value("name", ""), *reason)};
  }
  return {HealthState::progressing, ""};
}

}  // namespace opctl::apply
