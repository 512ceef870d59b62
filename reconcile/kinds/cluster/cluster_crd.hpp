// The CustomResourceDefinition `clusters.opctl.io`, generated from the same
// schema `opctl validate` checks against.
#pragma once

#include "model/object.hpp"

namespace opctl::kinds::cluster {

model::Json cluster_crd();

}  // namespace opctl::kinds::cluster
