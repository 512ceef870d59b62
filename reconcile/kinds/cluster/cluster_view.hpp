// What a pass sees of a Cluster: its children grouped into instances (the
// Pod and the PVC of one serial), the detached volumes kept by a scale-down,
// and the Jobs and Secrets, by name.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kinds/cluster/failover.hpp"
#include "kinds/kind_time.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

std::string label_of(const model::Json& object, const char* key);
std::string annotation_of(const model::Json& object, const char* key);
bool is_terminating(const model::Json& object);
// The Pod's Ready condition is True (and the Pod is not being deleted).
bool pod_ready(const model::Json& pod);
// The Pod's node is not Ready: the node controller marked the Pod not Ready
// while its containers were last seen ready.
bool on_unready_node(const model::Json& pod);
// The Pod reached a terminal phase (Failed: evicted, past its
// activeDeadlineSeconds, shut down with its node; or Succeeded): the kubelet
// never runs its containers again, so only a new Pod brings the instance back.
bool pod_finished(const model::Json& pod);
// Why the kubelet failed it, for the status and Events: "Evicted: The node was low on resource: memory.".
std::string pod_failure(const model::Json& pod);
// Why the kubelet cannot start a container of the Pod for want of its image
// ("ImagePullBackOff: Back-off pulling image \"...\""); empty when it can.
std::string image_pull_failure(const model::Json& pod);
// The Pod's postgres container is running (the instance manager is up).
bool postgres_running(const model::Json& pod);

enum class JobState { running, succeeded, failed };
JobState job_state(const model::Json& job);
// The reason a failed Job gives (its Failed condition's message), for the status.
std::string job_failure(const model::Json& job);

// Three missed heartbeats of the instance manager (it reports every 10 s).
inline constexpr std::chrono::seconds k_report_freshness{30};

struct Instance {
  int serial = 0;
  std::string name;
  const model::Json* pod = nullptr;
  const model::Json* pvc = nullptr;

  // A Pod that is neither being deleted nor finished: one that runs, or will.
  bool has_live_pod() const { return pod != nullptr && !is_terminating(*pod) && !pod_finished(*pod); }
  // A finished Pod not yet being deleted: the pass deletes it, and recreates it on the volume.
  bool has_failed_pod() const { return pod != nullptr && !is_terminating(*pod) && pod_finished(*pod); }
  bool ready() const { return has_live_pod() && pod_ready(*pod); }
  // May be promoted: Ready, or a running standby whose primary went away.
  bool promotable() const;
  // A Pod may be (re)created on this volume.
  bool volume_usable() const { return pvc != nullptr && !is_terminating(*pvc); }
  std::string pod_spec_hash() const;
  // What its manager reports of the configuration its PostgreSQL loaded:
  // the configuration_hash(), and the parameters waiting for a restart
  // (comma-separated; empty when none). Empty without a live Pod.
  std::string config_hash() const;
  std::string pending_restart() const;
  // Of those, the ones lowered that a standby must not have below its primary's.
  std::string pending_decrease() const;
  // Its report as a failover candidate, judged at `now`: a report the manager
  // last wrote more than k_report_freshness ago is stale (the manager hangs,
  // or its node is cut off from the API server) and makes it unpromotable.
  ReplicaReport report(TimePoint now) const;
};

struct ClusterView {
  std::map<int, Instance> instances;  // by serial; detached volumes are not instances
  std::vector<const model::Json*> detached_volumes;
  std::map<std::string, const model::Json*> jobs;
  std::map<std::string, const model::Json*> secrets;
  const model::Json* lease = nullptr;  // the primary Lease
  // Its holder (the instance that runs writable); empty when free or missing.
  std::string lease_holder() const;
  int highest_serial = 0;  // over every Pod and PVC seen, detached volumes included

  const Instance* find(const std::string& name) const;
};

ClusterView observe_cluster(const std::string& cluster, const std::vector<model::Json>& children);

}  // namespace opctl::kinds::cluster
