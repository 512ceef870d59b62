// assess_health, one row per state a rule knows: the state and the message
// a user reads while a --wait pass waits (or why it stopped).
#include <catch2/catch.hpp>

#include "apply/health_rules.hpp"

using opctl::apply::assess_health;
using opctl::apply::HealthState;
using opctl::model::Json;

namespace {

struct Row {
  std::string name;
  Json live;
  HealthState state;
  std::string message;
};

Json object(const std::string& api_version, const std::string& kind, Json spec, Json status,
            long generation = 1) {
  Json live = {{"apiVersion", api_version},
               {"kind", kind},
               {"metadata", {{"name", "x"}, {"namespace", "shop"}, {"generation", generation}}}};
  if (!spec.is_null()) live["spec"] = std::move(spec);
  if (!status.is_null()) live["status"] = std::move(status);
  return live;
}

Json condition(const std::string& type, const std::string& status, const std::string& reason = "",
               const std::string& message = "") {
  return {{"type", type}, {"status", status}, {"reason", reason}, {"message", message}};
}

Json deployment(Json status, long generation = 1) {
  return object("apps/v1", "Deployment", {{"replicas", 3}}, std::move(status), generation);
}

Json stateful_set(Json status) {
  return object("apps/v1", "StatefulSet", {{"replicas", 3}}, std::move(status));
}

Json daemon_set(Json status) {
  return object("apps/v1", "DaemonSet", Json::object(), std::move(status));
}

Json job(Json spec, Json status) {
  return object("batch/v1", "Job", std::move(spec), std::move(status));
}

Json claim(Json status) {
  return object("v1", "PersistentVolumeClaim", Json::object(), std::move(status));
}

Json service(const std::string& type, Json status) {
  return object("v1", "Service", {{"type", type}}, std::move(status));
}

Json crd(Json conditions) {
  return object("apiextensions.k8s.io/v1", "CustomResourceDefinition", Json::object(),
                {{"conditions", std::move(conditions)}});
}

Json pod(Json status) {
  return object("v1", "Pod", Json::object(), std::move(status));
}

Json widget(Json status, long generation = 1) {
  return object("example.com/v1", "Widget", Json::object(), std::move(status), generation);
}

const std::string k_observing = "waiting for the controller to observe the new generation";

std::vector<Row> rows() {
  return {
      // Deployment: its rollout, in the order kubectl rollout status checks it.
      {"Deployment past its progress deadline",
       deployment(
           {{"observedGeneration", 1},
            {"conditions", Json::array({condition("Progressing", "False", "ProgressDeadlineExceeded",
                                                  R"(ReplicaSet "x-1" has timed out progressing.)")})}}),
       HealthState::failed, R"(ProgressDeadlineExceeded: ReplicaSet "x-1" has timed out progressing.)"},
      {"Deployment not yet seen by its controller", deployment(Json::object()), HealthState::progressing,
       k_observing},
      {"Deployment whose new generation is not observed", deployment({{"observedGeneration", 1}}, 2),
       HealthState::progressing, k_observing},
      {"Deployment rolling out",
       deployment({{"observedGeneration", 1}, {"updatedReplicas", 1}, {"replicas", 3}}),
       HealthState::progressing, "1 of 3 replicas updated"},
      {"Deployment with old replicas left",
       deployment(
           {{"observedGeneration", 1}, {"updatedReplicas", 3}, {"replicas", 4}, {"availableReplicas", 3}}),
       HealthState::progressing, "1 old replicas pending termination"},
      {"Deployment updated, not all available",
       deployment(
           {{"observedGeneration", 1}, {"updatedReplicas", 3}, {"replicas", 3}, {"availableReplicas", 2}}),
       HealthState::progressing, "2 of 3 updated replicas available"},
      {"Deployment rolled out",
       deployment(
           {{"observedGeneration", 1}, {"updatedReplicas", 3}, {"replicas", 3}, {"availableReplicas", 3}}),
       HealthState::healthy, ""},
      {"Deployment without spec.replicas wants one",
       object("apps/v1", "Deployment", Json::object(),
              {{"observedGeneration", 1}, {"updatedReplicas", 1}, {"replicas", 1}, {"availableReplicas", 1}}),
       HealthState::healthy, ""},
      // StatefulSet
      {"StatefulSet not yet seen by its controller", stateful_set(Json::object()), HealthState::progressing,
       k_observing},
      {"StatefulSet with replicas not ready", stateful_set({{"observedGeneration", 1}, {"readyReplicas", 1}}),
       HealthState::progressing, "1 of 3 replicas ready"},
      {"StatefulSet ready, mid-update",
       stateful_set({{"observedGeneration", 1},
                     {"readyReplicas", 3},
                     {"updatedReplicas", 1},
                     {"currentRevision", "x-1"},
                     {"updateRevision", "x-2"}}),
       HealthState::progressing, "1 of 3 replicas updated"},
      {"StatefulSet ready on one revision",
       stateful_set({{"observedGeneration", 1},
                     {"readyReplicas", 3},
                     {"updatedReplicas", 3},
                     {"currentRevision", "x-2"},
                     {"updateRevision", "x-2"}}),
       HealthState::healthy, ""},
      // DaemonSet
      {"DaemonSet not yet seen by its controller", daemon_set(Json::object()), HealthState::progressing,
       k_observing},
      {"DaemonSet updating",
       daemon_set({{"observedGeneration", 1},
                   {"desiredNumberScheduled", 3},
                   {"updatedNumberScheduled", 2},
                   {"numberAvailable", 2}}),
       HealthState::progressing, "2 of 3 pods updated"},
      {"DaemonSet updated, not all available",
       daemon_set({{"observedGeneration", 1},
                   {"desiredNumberScheduled", 3},
                   {"updatedNumberScheduled", 3},
                   {"numberAvailable", 1}}),
       HealthState::progressing, "1 of 3 pods available"},
      {"DaemonSet available on every node",
       daemon_set({{"observedGeneration", 1},
                   {"desiredNumberScheduled", 3},
                   {"updatedNumberScheduled", 3},
                   {"numberAvailable", 3}}),
       HealthState::healthy, ""},
      {"DaemonSet on no node yet is done", daemon_set({{"observedGeneration", 1}}), HealthState::healthy, ""},
      // Job
      {"Job failed",
       job(Json::object(),
           {{"conditions", Json::array({condition("Failed", "True", "BackoffLimitExceeded",
                                                  "Job has reached the specified backoff limit")})}}),
       HealthState::failed, "Job failed: BackoffLimitExceeded: Job has reached the specified backoff limit"},
      {"Job complete",
       job(Json::object(), {{"succeeded", 1}, {"conditions", Json::array({condition("Complete", "True")})}}),
       HealthState::healthy, ""},
      {"Job running", job(Json::object(), Json::object()), HealthState::progressing, "0 of 1 completions"},
      {"Job part way", job({{"completions", 5}}, {{"succeeded", 2}}), HealthState::progressing,
       "2 of 5 completions"},
      // PersistentVolumeClaim
      {"claim bound", claim({{"phase", "Bound"}}), HealthState::healthy, ""},
      {"claim lost", claim({{"phase", "Lost"}}), HealthState::failed, "the claim lost its volume"},
      {"claim pending", claim({{"phase", "Pending"}}), HealthState::progressing, "phase Pending"},
      {"claim without status", claim(nullptr), HealthState::progressing, "phase Pending"},
      // Service
      {"ClusterIP Service", service("ClusterIP", nullptr), HealthState::healthy, ""},
      {"LoadBalancer without an address", service("LoadBalancer", {{"loadBalancer", Json::object()}}),
       HealthState::progressing, "waiting for a load balancer address"},
      {"LoadBalancer with an address",
       service("LoadBalancer", {{"loadBalancer", {{"ingress", Json::parse(R"([{"ip": "203.0.113.7"}])")}}}}),
       HealthState::healthy, ""},
      // CustomResourceDefinition
      {"CRD established",
       crd(Json::array({condition("NamesAccepted", "True"), condition("Established", "True")})),
       HealthState::healthy, ""},
      {"CRD whose names clash",
       crd(Json::array({condition("NamesAccepted", "False", "MultipleNamesNotAllowed",
                                  R"("gadget" is already in use)")})),
       HealthState::failed, R"(names not accepted: MultipleNamesNotAllowed: "gadget" is already in use)"},
      {"CRD not established yet", crd(Json::array()), HealthState::progressing, "not Established yet"},
      // Pod
      {"Pod succeeded", pod({{"phase", "Succeeded"}}), HealthState::healthy, ""},
      {"Pod failed", pod({{"phase", "Failed"}, {"message", "The node was low on resource: memory."}}),
       HealthState::failed, "Pod failed: The node was low on resource: memory."},
      {"Pod failed without a message", pod({{"phase", "Failed"}, {"reason", "Evicted"}}), HealthState::failed,
       "Pod failed: Evicted"},
      {"Pod whose image cannot be pulled",
       pod({{"phase", "Pending"}, {"containerStatuses", Json::parse(R"([{"name": "web", "state": {"waiting":
                {"reason": "ImagePullBackOff", "message": "Back-off pulling image"}}}])")}}),
       HealthState::failed, "container web: ImagePullBackOff: Back-off pulling image"},
      {"Pod ready", pod({{"phase", "Running"}, {"conditions", Json::array({condition("Ready", "True")})}}),
       HealthState::healthy, ""},
      {"Pod running, not ready",
       pod({{"phase", "Running"}, {"conditions", Json::array({condition("Ready", "False")})}}),
       HealthState::progressing, "phase Running, not Ready"},
      {"Pod without status", pod(nullptr), HealthState::progressing, "phase Pending, not Ready"},
      // Any other kind: standard conditions.
      {"kind without conditions (a ConfigMap)", object("v1", "ConfigMap", nullptr, nullptr),
       HealthState::healthy, ""},
      {"kind Ready",
       widget({{"observedGeneration", 1}, {"conditions", Json::array({condition("Ready", "True")})}}),
       HealthState::healthy, ""},
      {"kind not Ready",
       widget({{"conditions",
                Json::array({condition("Ready", "False", "Provisioning", "waiting for the database")})}}),
       HealthState::progressing, "not Ready: Provisioning: waiting for the database"},
      {"kind Ready for an old generation",
       widget({{"observedGeneration", 1}, {"conditions", Json::array({condition("Ready", "True")})}}, 2),
       HealthState::progressing, k_observing},
      {"kind Stalled",
       widget(
           {{"conditions", Json::array({condition("Stalled", "True", "InvalidSpec", "size must be > 0")})}}),
       HealthState::failed, "Stalled: InvalidSpec: size must be > 0"},
      {"kind Degraded, even when Ready",
       widget({{"conditions", Json::array({condition("Ready", "True"),
                                           condition("Degraded", "True", "", "one replica down")})}}),
       HealthState::failed, "Degraded: one replica down"},
  };
}

}  // namespace

TEST_CASE("assess_health gives each kind's state and the message a waiting user reads", "[health_rules]") {
  for (const auto& row : rows()) {
    DYNAMIC_SECTION(row.name) {
      auto health = assess_health(row.live);
      CHECK(opctl::apply::to_string(health.state) == std::string(opctl::apply::to_string(row.state)));
      CHECK(health.message == row.message);
    }
  }
}
