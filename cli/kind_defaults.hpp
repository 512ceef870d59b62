// The custom kinds of a run with what the site decided for them: one place,
// so that validate, the pass and the kinds kept running from their live spec
// agree on what a Cluster without spec.imageName runs.
#pragma once

#include "common_options.hpp"
#include "kinds/kind_registry.hpp"

namespace opctl::cli {

// --default-postgres-image, else opctl.yaml's spec.clusterDefaults.imageName.
kinds::BuiltinKindOptions builtin_kind_options(const CommonOptions& options);

// The built-in kinds with those settings, and opctl.yaml's hook kinds.
kinds::KindRegistry run_registry(const CommonOptions& options);

}  // namespace opctl::cli
