// Instance Pods the kubelet failed for good (evicted, past their
// activeDeadlineSeconds, shut down with their node): their containers never
// run again, so the pass deletes them and recreates them on their volume.
#include <catch2/catch.hpp>

#include "cluster_world.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;
using Names = std::vector<std::string>;

namespace {

Json one_instance() {
  return {{"instances", 1},
          {"imageName", "ghcr.io/cloudnative-pg/postgresql:16.4"},
          {"storage", {{"size", "1Gi"}}}};
}

// What the kubelet leaves on a Pod it failed.
void fail(World& world, const std::string& pod, const std::string& reason, const std::string& message) {
  world.pod(pod)["status"] = {{"phase", "Failed"},
                              {"reason", reason},
                              {"message", message},
                              {"conditions", Json::array({{{"type", "Ready"}, {"status", "False"}}})}};
}

const opctl::kinds::KindEvent* event_with(const opctl::kinds::ReconcileResult& result,
                                          const std::string& reason) {
  for (const auto& event : result.events)
    if (event.reason == reason) return &event;
  return nullptr;
}

std::string deletion_reason(const opctl::kinds::ReconcileResult& result, const std::string& name) {
  for (const auto& object : result.deletions)
    if (object["metadata"].value("name", "") == name)
      return object["metadata"]["annotations"].value(opctl::kinds::k_deletion_reason_annotation, "");
  return "";
}

}  // namespace

TEST_CASE("a failed Pod of a single instance is deleted and recreated on its volume", "[cluster][failed]") {
  // Given a 1-instance Cluster whose Pod the kubelet failed (DeadlineExceeded), we should delete
  // the Pod, say why, and recreate it as the primary on the same volume by the next pass.
  World world(one_instance());
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  world.pod("db-1")["metadata"]["uid"] = "pod-uid-1";
  fail(world, "db-1", "DeadlineExceeded", "Pod was active on the node longer than the specified deadline");

  auto result = world.pass();
  CHECK_FALSE(world.has("Pod", "db-1"));
  CHECK(world.has("PersistentVolumeClaim", "db-1"));
  CHECK(world.reason("Progressing") == "RecreatingFailedPod");
  CHECK(world.status("phaseReason").find("DeadlineExceeded") != std::string::npos);
  REQUIRE(result.requeue_after.has_value());
  const auto* event = event_with(result, "InstancePodFailed");
  REQUIRE(event != nullptr);
  CHECK(event->type == "Warning");
  CHECK(event->message.find("db-1") != std::string::npos);
  CHECK(event->message.find("DeadlineExceeded") != std::string::npos);
  CHECK(deletion_reason(result, "db-1").find("failed") != std::string::npos);

  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  CHECK_FALSE(world.pod("db-1")["metadata"].contains("uid"));  // a new Pod
  CHECK(world.role("db-1") == "primary");
  CHECK(world.pod("db-1")["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == "db-1");
  world.settle();
  CHECK(world.phase() == "Healthy");
  CHECK(world.names("Pod") == Names{"db-1"});
  CHECK(world.status("currentPrimary") == "db-1");
}

TEST_CASE("a failed replica Pod is recreated with its name and volume, not replaced by a new serial",
          "[cluster][failed]") {
  // Given an evicted replica, we should delete its Pod and recreate it as db-2 again: the volume is the
  // instance.
  World world(three_instances());
  world.settle();
  REQUIRE(world.phase() == "Healthy");
  fail(world, "db-2", "Evicted", "The node was low on resource: memory.");

  auto result = world.pass();
  CHECK_FALSE(world.has("Pod", "db-2"));
  CHECK(world.has("PersistentVolumeClaim", "db-2"));
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.primary_pods() == "db-1");
  CHECK(world.reason("Progressing") == "RecreatingFailedPod");
  REQUIRE(event_with(result, "InstancePodFailed") != nullptr);
  CHECK(event_with(result, "InstancePodFailed")->message.find("Evicted") != std::string::npos);

  world.settle();
  CHECK(world.phase() == "Healthy");
  CHECK(world.names("Pod") == Names{"db-1", "db-2", "db-3"});
  CHECK(world.role("db-2") == "replica");
  CHECK(world.status("currentPrimary") == "db-1");
}

TEST_CASE("a failed primary Pod counts as gone: deleted, recreated on its volume, the Lease decides its role",
          "[cluster][failed][failover]") {
  // Given a failed primary and Ready replicas, we should delete the failed Pod (saying why) and recreate it
  // on its volume, and leave the failover to the instances: a replica takes the primary Lease once it
  // expires.
  World world(three_instances());
  world.settle();
  world.managers_play_lease = false;
  fail(world, "db-1", "Evicted", "The node was low on resource: ephemeral-storage.");

  auto result = world.pass();
  CHECK_FALSE(world.has("Pod", "db-1"));
  CHECK(world.has("PersistentVolumeClaim", "db-1"));
  CHECK(world.reason("Progressing") == "WaitingForLease");
  CHECK(world.status("phaseReason").find("failed (Evicted") != std::string::npos);
  CHECK(event_with(result, "InstancePodFailed") != nullptr);

  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  world.set_lease_holder("db-3");  // the Lease expired; db-3 was the furthest
  world.settle();
  CHECK(world.phase() == "Healthy");
  CHECK(world.status("currentPrimary") == "db-3");
  CHECK(world.primary_pods() == "db-3");
  CHECK(world.role("db-1") == "replica");
}

TEST_CASE("a failed primary that comes back before its Lease expires keeps its role",
          "[cluster][failed][failover]") {
  World world(three_instances());
  world.set_spec("failoverDelay", 30);
  world.settle();
  fail(world, "db-1", "Evicted", "The node was low on resource: memory.");

  world.pass();
  CHECK_FALSE(world.has("Pod", "db-1"));
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.reason("Progressing") == "WaitingForLease");

  world.pass();
  REQUIRE(world.has("Pod", "db-1"));
  CHECK(world.role("db-1") == "primary");  // it still holds the Lease
  world.settle();
  CHECK(world.phase() == "Healthy");
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.primary_pods() == "db-1");
}

TEST_CASE("a failed Pod already being deleted is not reported again", "[cluster][failed]") {
  // Given the failed Pod's deletion is under way, we should neither delete it again nor record another Event.
  World world(one_instance());
  world.settle();
  fail(world, "db-1", "DeadlineExceeded", "Pod was active on the node longer than the specified deadline");
  world.pod("db-1")["metadata"]["deletionTimestamp"] = "2026-11-29T16:00:00Z";
  auto result = world.pass();
  CHECK(result.events.empty());
  CHECK(result.deletions.empty());
}
