#include <catch2/catch.hpp>

#include "apply/health_rules.hpp"
#include "apply/workload_pods.hpp"

using opctl::apply::assess_health;
using opctl::apply::assess_workload_pods;
using opctl::apply::HealthState;
using opctl::apply::workload_pod_selector;
using opctl::model::Json;

namespace {
// A Deployment at revision 2 rolling out: ReplicaSet rs-2 runs revision 2,
// rs-1 the old one.
Json deployment() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "uid": "d-uid", "generation": 2,
                 "annotations": {"deployment.kubernetes.io/revision": "2"}},
    "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web", "tier": "front"}}},
    "status": {"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 0}
  })");
}

Json replica_set(const std::string& uid, const std::string& revision) {
  Json set = Json::parse(R"({"apiVersion": "apps/v1", "kind": "ReplicaSet",
    "metadata": {"ownerReferences": [{"uid": "d-uid", "controller": true}], "annotations": {}}})");
  set["metadata"]["uid"] = uid;
  set["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = revision;
  return set;
}

Json pod(const std::string& name, const std::string& owner_uid, const std::string& waiting_reason) {
  Json p = Json::parse(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {}, "status": {"phase": "Running",
    "containerStatuses": [{"name": "web", "state": {"waiting": {"message": "back-off 10s restarting"}}}]}})");
  p["metadata"]["name"] = name;
  p["metadata"]["ownerReferences"] = Json::array({{{"uid", owner_uid}, {"controller", true}}});
  p["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] = waiting_reason;
  return p;
}
}  // namespace

TEST_CASE("a workload's Pod selector is its matchLabels as a query", "[apply][workload_pods]") {
  // Given a Deployment selecting two labels, we should ask for exactly those Pods.
  CHECK(workload_pod_selector(deployment()) == "app=web,tier=front");
  Json config_map = Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})");
  CHECK_FALSE(workload_pod_selector(config_map).has_value());
  Json expressions = deployment();
  expressions["spec"]["selector"] =
      Json::parse(R"({"matchExpressions": [{"key": "a", "operator": "Exists"}]})");
  CHECK_FALSE(workload_pod_selector(expressions).has_value());
}

TEST_CASE("a crash-looping Pod of the current revision fails the Deployment at once",
          "[apply][workload_pods]") {
  // Given the new ReplicaSet's Pod in CrashLoopBackOff, we should fail naming the Pod, container and reason.
  auto health = assess_workload_pods(deployment(), {replica_set("rs-1", "1"), replica_set("rs-2", "2")},
                                     {pod("web-2-abc", "rs-2", "CrashLoopBackOff")});
  CHECK(health.state == HealthState::failed);
  CHECK(health.message == "Pod web-2-abc: container web: CrashLoopBackOff: back-off 10s restarting");
}

TEST_CASE("a broken Pod of an old revision does not fail the rollout that replaces it",
          "[apply][workload_pods]") {
  // Given only the old ReplicaSet's Pod failing to pull, we should keep waiting for the new revision.
  auto health = assess_workload_pods(deployment(), {replica_set("rs-1", "1"), replica_set("rs-2", "2")},
                                     {pod("web-1-old", "rs-1", "ImagePullBackOff")});
  CHECK(health.state == HealthState::progressing);
}

TEST_CASE("a Pod waiting for an ordinary reason keeps the workload progressing", "[apply][workload_pods]") {
  // Given ContainerCreating, we should wait: it goes away by itself.
  auto health = assess_workload_pods(deployment(), {replica_set("rs-2", "2")},
                                     {pod("web-2-abc", "rs-2", "ContainerCreating")});
  CHECK(health.state == HealthState::progressing);
}

TEST_CASE("a Job whose Pod cannot pull its image fails", "[apply][workload_pods]") {
  // Given a Job's own Pod in ErrImagePull, we should fail without reading ReplicaSets.
  Json job =
      Json::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "uid": "j-uid"},
    "spec": {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "j-uid"}}}})");
  auto health = assess_workload_pods(job, {}, {pod("j-1", "j-uid", "ErrImagePull")});
  CHECK(health.state == HealthState::failed);
  CHECK(health.message.find("ErrImagePull") != std::string::npos);
}

TEST_CASE("a Pod's own health names its blocked container", "[apply][health_rules]") {
  // Given a bare Pod in CreateContainerConfigError (a missing Secret), we should fail with the reason.
  Json bare = pod("p", "nobody", "CreateContainerConfigError");
  auto health = assess_health(bare);
  CHECK(health.state == HealthState::failed);
  CHECK(health.message == "container web: CreateContainerConfigError: back-off 10s restarting");
}
