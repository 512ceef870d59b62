#include "apply/health_rules.hpp"

#include <fmt/format.h>

#include <functional>
#include <vector>

#include "apply/workload_pods.hpp"

namespace opctl::apply {
namespace {

using model::Json;

struct Rule {
  std::string group;
  std::string kind;
  std::function<HealthStatus(const Json&)> assess;
};

HealthStatus healthy() {
  return {HealthState::healthy, ""};
}
HealthStatus progressing(std::string message) {
  return {HealthState::progressing, std::move(message)};
}
HealthStatus failed(std::string message) {
  return {HealthState::failed, std::move(message)};
}

const Json& status_of(const Json& object) {
  static const Json k_empty = Json::object();
  return object.contains("status") && object["status"].is_object() ? object["status"] : k_empty;
}

const Json* condition(const Json& object, const std::string& type) {
  const Json& status = status_of(object);
  if (!status.contains("conditions") || !status["conditions"].is_array()) return nullptr;
  for (const auto& entry : status["conditions"])
    if (entry.value("type", "") == type) return &entry;
  return nullptr;
}

std::string condition_text(const Json& entry) {
  std::string reason = entry.value("reason", "");
  std::string message = entry.value("message", "");
  if (reason.empty()) return message;
  return message.empty() ? reason : reason + ": " + message;
}

// The controller has not looked at the latest spec yet.
bool generation_pending(const Json& object) {
  long generation = object.contains("metadata") ? object["metadata"].value("generation", 0L) : 0L;
  const Json& status = status_of(object);
  return status.contains("observedGeneration") && status["observedGeneration"].get<long>() < generation;
}

long desired_replicas(const Json& object) {
  return object.contains("spec") ? object["spec"].value("replicas", 1L) : 1L;
}

HealthStatus deployment(const Json& object) {
  if (const Json* progress = condition(object, "Progressing");
      progress && progress->value("reason", "") == "ProgressDeadlineExceeded")
    return failed("ProgressDeadlineExceeded: " + progress->value("message", ""));
  if (generation_pending(object) || !status_of(object).contains("observedGeneration"))
    return progressing("waiting for the controller to observe the new generation");
  const Json& status = status_of(object);
  long want = desired_replicas(object);
  long updated = status.value("updatedReplicas", 0L);
  long available = status.value("availableReplicas", 0L);
  long total = status.value("replicas", 0L);
  if (updated < want) return progressing(fmt::format("{} of {} replicas updated", updated, want));
  if (total > updated)
    return progressing(fmt::format("{} old replicas pending termination", total - updated));
  if (available < want)
    return progressing(fmt::format("{} of {} updated replicas available", available, want));
  return healthy();
}

HealthStatus stateful_set(const Json& object) {
  if (generation_pending(object) || !status_of(object).contains("observedGeneration"))
    return progressing("waiting for the controller to observe the new generation");
  const Json& status = status_of(object);
  long want = desired_replicas(object);
  long ready = status.value("readyReplicas", 0L);
  long updated = status.value("updatedReplicas", 0L);
  if (ready < want) return progressing(fmt::format("{} of {} replicas ready", ready, want));
  if (updated < want && status.value("currentRevision", "") != status.value("updateRevision", ""))
    return progressing(fmt::format("{} of {} replicas updated", updated, want));
  return healthy();
}

HealthStatus daemon_set(const Json& object) {
  if (generation_pending(object) || !status_of(object).contains("observedGeneration"))
    return progressing("waiting for the controller to observe the new generation");
  const Json& status = status_of(object);
  long want = status.value("desiredNumberScheduled", 0L);
  long updated = status.value("updatedNumberScheduled", 0L);
  long available = status.value("numberAvailable", 0L);
  if (updated < want) return progressing(fmt::format("{} of {} pods updated", updated, want));
  if (available < want) return progressing(fmt::format("{} of {} pods available", available, want));
  return healthy();
}

HealthStatus job(const Json& object) {
  if (const Json* done = condition(object, "Failed"); done && done->value("status", "") == "True")
    return failed("Job failed: " + condition_text(*done));
  if (const Json* done = condition(object, "Complete"); done && done->value("status", "") == "True")
    return healthy();
  return progressing(fmt::format("{} of {} completions", status_of(object).value("succeeded", 0L),
                                 object.contains("spec") ? object["spec"].value("completions", 1L) : 1L));
}

HealthStatus persistent_volume_claim(const Json& object) {
  std::string phase = status_of(object).value("phase", "");
  if (phase == "Bound") return healthy();
  if (phase == "Lost") return failed("the claim lost its volume");
  return progressing("phase " + (phase.empty() ? std::string("Pending") : phase));
}

HealthStatus custom_resource_definition(const Json& object) {
  if (const Json* names = condition(object, "NamesAccepted"); names && names->value("status", "") == "False")
    return failed("names not accepted: " + condition_text(*names));
  if (const Json* established = condition(object, "Established");
      established && established->value("status", "") == "True")
    return healthy();
  return progressing("not Established yet");
}

HealthStatus service(const Json& object) {
  std::string type = object.contains("spec") ? object["spec"].value("type", "ClusterIP") : "ClusterIP";
  if (type != "LoadBalancer") return healthy();
  const Json& status = status_of(object);
  if (status.contains("loadBalancer") && !status["loadBalancer"].value("ingress", Json::array()).empty())
    return healthy();
  return progressing("waiting for a load balancer address");
}

HealthStatus pod(const Json& object) {
  const Json& status = status_of(object);
  std::string phase = status.value("phase", "");
  if (phase == "Succeeded") return healthy();
  if (phase == "Failed") return failed("Pod failed: " + status.value("message", status.value("reason", "")));
  if (auto reason = blocked_container(object)) return failed(*reason);
  if (const Json* ready = condition(object, "Ready"); ready && ready->value("status", "") == "True")
    return healthy();
  return progressing("phase " + (phase.empty() ? std::string("Pending") : phase) + ", not Ready");
}

// Any kind that reports standard conditions (custom kinds do): Stalled or
// Degraded fail, Ready decides, observedGeneration must be current.
HealthStatus generic(const Json& object) {
  for (const char* type : {"Stalled", "Degraded"})
    if (const Json* bad = condition(object, type); bad && bad->value("status", "") == "True")
      return failed(std::string(type) + ": " + condition_text(*bad));
  const Json* ready = condition(object, "Ready");
  if (ready == nullptr) return healthy();
  if (generation_pending(object))
    return progressing("waiting for the controller to observe the new generation");
  if (ready->value("status", "") == "True") return healthy();
  return progressing("not Ready: " + condition_text(*ready));
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> k_rules = {
      {"apps", "Deployment", deployment},
      {"apps", "StatefulSet", stateful_set},
      {"apps", "DaemonSet", daemon_set},
      {"batch", "Job", job},
      {"", "PersistentVolumeClaim", persistent_volume_claim},
      {"apiextensions.k8s.io", "CustomResourceDefinition", custom_resource_definition},
      {"", "Service", service},
      {"", "Pod", pod},
  };
  return k_rules;
}

}  // namespace

const char* to_string(HealthState state) {
  switch (state) {
    case HealthState::healthy:
      return "healthy";
    case HealthState::progressing:
      return "progressing";
    case HealthState::failed:
      return "failed";
  }
  return "unknown";
}

HealthStatus assess_health(const Json& live) {
  auto gvk = model::GroupVersionKind::from(live.value("apiVersion", ""), live.value("kind", ""));
  for (const auto& rule : rules())
    if (rule.group == gvk.group && rule.kind == gvk.kind) return rule.assess(live);
  return generic(live);
}

}  // namespace opctl::apply
