// The `Cluster` kind (opctl.io/v1alpha1): a PostgreSQL cluster managed the way
// CloudNativePG does, one level-based pass at a time. See opctl-cluster-kind(5).
#pragma once

#include <memory>
#include <string>

#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds::cluster {

// `default_image`: what a Cluster without spec.imageName runs, the site default
// (opctl.yaml spec.clusterDefaults.imageName); empty: k_default_image, with a
// warning from `opctl validate` and before each pass.
std::unique_ptr<KindReconciler> make_cluster_reconciler(const std::string& default_image = "");

}  // namespace opctl::kinds::cluster
