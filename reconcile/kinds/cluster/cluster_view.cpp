#include "kinds/cluster/cluster_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kinds/cluster/cluster_names.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

std::string metadata_entry(const Json& object, const char* map, const char* key) {
  if (!object.contains("metadata") || !object["metadata"].is_object()) return "";
  const Json& metadata = object["metadata"];
  if (!metadata.contains(map) || !metadata[map].is_object()) return "";
  const Json& entries = metadata[map];
  return entries.contains(key) && entries[key].is_string() ? entries[key].get<std::string>() : "";
}

bool has_condition(const Json& object, const char* type) {
  if (!object.contains("status") || !object["status"].is_object()) return false;
  const Json& status = object["status"];
  if (!status.contains("conditions") || !status["conditions"].is_array()) return false;
  return std::any_of(status["conditions"].begin(), status["conditions"].end(), [&](const Json& condition) {
    return condition.is_object() && condition.value("type", "") == type &&
           condition.value("status", "") == "True";
  });
}

std::optional<Lsn> lsn_annotation(const Json& pod, const char* key) {
  std::string text = annotation_of(pod, key);
  if (text.empty()) text = annotation_of(pod, k_lsn_annotation);
  return Lsn::parse(text);
}

}  // namespace

std::string label_of(const Json& object, const char* key) {
  return metadata_entry(object, "labels", key);
}
std::string annotation_of(const Json& object, const char* key) {
  return metadata_entry(object, "annotations", key);
}

bool is_terminating(const Json& object) {
  return object.contains("metadata") && object["metadata"].is_object() &&
         object["metadata"].contains("deletionTimestamp") &&
         !object["metadata"]["deletionTimestamp"].is_null();
}

bool pod_ready(const Json& pod) {
  return !is_terminating(pod) && has_condition(pod, "Ready");
}

bool on_unready_node(const Json& pod) {
  // The kubelet sets Ready from ContainersReady (the instances have no
  // readiness gates); only the node lifecycle controller turns Ready off
  // alone, when the Pod's node stops reporting.
  return !has_condition(pod, "Ready") && has_condition(pod, "ContainersReady");
}

bool pod_finished(const Json& pod) {
  std::string phase = pod.value("/status/phase"_json_pointer, "");
  return phase == "Failed" || phase == "Succeeded";
}

std::string pod_failure(const Json& pod) {
  std::string reason = pod.value("/status/reason"_json_pointer, "");
  std::string message = pod.value("/status/message"_json_pointer, "");
  if (reason.empty()) reason = pod.value("/status/phase"_json_pointer, "Failed");
  return message.empty() ? reason : reason + ": " + message;
}

std::string image_pull_failure(const Json& pod) {
  static constexpr const char* k_reasons[] = {"ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull",
                                              "InvalidImageName"};
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const Json& statuses = pod.contains("status") && pod["status"].is_object()
                               ? pod["status"].value(list, Json::array())
                               : Json::array();
    for (const auto& status : statuses) {
      std::string reason = status.value("/state/waiting/reason"_json_pointer, "");
      if (std::find(std::begin(k_reasons), std::end(k_reasons), reason) == std::end(k_reasons)) continue;
      std::string message = status.value("/state/waiting/message"_json_pointer, "");
      return message.empty() ? reason : reason + ": " + message;
    }
  }
  return "";
}

JobState job_state(const Json& job) {
  if (has_condition(job, "Complete")) return JobState::succeeded;
  if (has_condition(job, "Failed")) return JobState::failed;
  return JobState::running;
}

std::string job_failure(const Json& job) {
  for (const auto& condition : job.value("/status/conditions"_json_pointer, Json::array()))
    if (condition.is_object() && condition.value("type", "") == "Failed")
      return condition.value("message", condition.value("reason", "failed"));
  return "failed";
}

std::string Instance::pod_spec_hash() const {
  return pod == nullptr ? "" : annotation_of(*pod, k_spec_hash_annotation);
}

std::string Instance::config_hash() const {
  return has_live_pod() ? annotation_of(*pod, k_config_hash_annotation) : "";
}

std::string Instance::pending_restart() const {
  return has_live_pod() ? annotation_of(*pod, k_pending_restart_annotation) : "";
}

std::string Instance::pending_decrease() const {
  return has_live_pod() ? annotation_of(*pod, k_pending_decrease_annotation) : "";
}

bool postgres_running(const Json& pod) {
  for (const auto& status : pod.value("/status/containerStatuses"_json_pointer, Json::array()))
    if (status.is_object() && status.value("name", "") == "postgres")
      return status.contains("state") && status["state"].is_object() && status["state"].contains("running");
  return false;
}

bool Instance::promotable() const {
  if (ready()) return true;
  // A replica stops streaming (and so being Ready) when its primary goes: its
  // manager still reports it running as a standby, which is what a failover needs.
  return has_live_pod() && postgres_running(*pod) &&
         annotation_of(*pod, k_instance_role_annotation) == k_role_replica;
}

ReplicaReport Instance::report(TimePoint now) const {
  ReplicaReport report;
  report.name = name;
  report.ready = promotable();
  if (pod != nullptr) {
    report.error = annotation_of(*pod, k_instance_error_annotation);
    report.received = lsn_annotation(*pod, k_received_lsn_annotation);
    report.replayed = lsn_annotation(*pod, k_replay_lsn_annotation);
    if (on_unready_node(*pod)) report.unpromotable = "its node is not Ready";
    // Managers older than opctl.io/reported-at write none: their reports count as fresh.
    if (auto reported = parse_time(annotation_of(*pod, k_reported_at_annotation))) {
      auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *reported);
      if (age > k_report_freshness)
        report.unpromotable = fmt::format("its last report is {}s old (reported-at {})", age.count(),
                                          annotation_of(*pod, k_reported_at_annotation));
    }
  }
  return report;
}

const Instance* ClusterView::find(const std::string& name) const {
  for (const auto& [serial, instance] : instances)
    if (instance.name == name) return &instance;
  return nullptr;
}

std::string ClusterView::lease_holder() const {
  if (lease == nullptr) return "";
  return lease->value("/spec/holderIdentity"_json_pointer, "");
}

ClusterView observe_cluster(const std::string& cluster, const std::vector<Json>& children) {
  ClusterView view;
  for (const auto& child : children) {
    std::string kind = child.value("kind", "");
    std::string name = child.contains("metadata") ? child["metadata"].value("name", "") : "";
    if (kind == "Job") {
      view.jobs[name] = &child;
    } else if (kind == "Secret") {
      view.secrets[name] = &child;
    } else if (kind == "Lease" && name == primary_lease(cluster)) {
      view.lease = &child;
    } else if (kind == "Pod" || kind == "PersistentVolumeClaim") {
      auto serial = serial_of(cluster, name);
      if (!serial) continue;
      view.highest_serial = std::max(view.highest_serial, *serial);
      if (kind == "PersistentVolumeClaim" && annotation_of(child, k_detached_annotation) == "true") {
        view.detached_volumes.push_back(&child);
        continue;
      }
      Instance& instance = view.instances[*serial];
      instance.serial = *serial;
      instance.name = name;
      (kind == "Pod" ? instance.pod : instance.pvc) = &child;
    }
  }
  // What is left of a removed instance (a Pod or volume still terminating) is not an instance.
  std::erase_if(view.instances, [](const auto& entry) {
    return !entry.second.volume_usable() && !entry.second.has_live_pod();
  });
  return view;
}

}  // namespace opctl::kinds::cluster
