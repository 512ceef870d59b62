// A Cluster's metrics (opctl reconcile --metrics-file, --metrics-push) read from its live status and from the
// status of the Backups that name it.
#pragma once

#include <vector>

#include "apply/run_metrics.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

// `cluster` is a live Cluster; `backups` are live Backups (of its namespace or any): those whose spec.cluster
// names it give its last backup. Fields the status does not have yet (a new Cluster) read as zero or absent.
apply::ClusterMetrics cluster_metrics(const model::Json& cluster, const std::vector<model::Json>& backups);

}  // namespace opctl::kinds::cluster
