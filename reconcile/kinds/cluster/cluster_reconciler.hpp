// The `Cluster` kind (opctl.io/v1alpha1): a PostgreSQL cluster managed the way
// CloudNativePG does, one level-based pass at a time. See opctl-cluster-kind(5).
#pragma once

#include <memory>

#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds::cluster {

std::unique_ptr<KindReconciler> make_cluster_reconciler();

}  // namespace opctl::kinds::cluster
