// Whether a workload that is still progressing can no longer become healthy
// because of its Pods: a container of its current revision crash-looping or
// whose image cannot be pulled. A Deployment's own status says neither until
// its progress deadline (ten minutes by default), so a health wait would sit
// until its timeout; kubectl rollout status and Argo CD behave the same, and
// users ask for better (kustomize-controller #701, flux2 #3790).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "apply/health_rules.hpp"
#include "model/object.hpp"

namespace opctl::apply {

// The label selector of the Pods a workload runs (Deployment, StatefulSet,
// DaemonSet, Job), as a query value ("a=b,c=d"), or nothing for other kinds
// or a selector without matchLabels.
std::optional<std::string> workload_pod_selector(const model::Json& workload);

// Whether the workload reads its ReplicaSets to know its current revision.
bool workload_needs_replica_sets(const model::Json& workload);

// Failed when a Pod of the workload's current revision has a container
// waiting for a reason that does not go away by itself; otherwise progressing
// with an empty message. replica_sets are only read for a Deployment.
HealthStatus assess_workload_pods(const model::Json& workload, const std::vector<model::Json>& replica_sets,
                                  const std::vector<model::Json>& pods);

// The reason a Pod's container cannot run ("container web: CrashLoopBackOff:
// back-off 10s ..."), if one has such a reason.
std::optional<std::string> blocked_container(const model::Json& pod);

}  // namespace opctl::apply
