// `opctl reconcile` runs the checks of `opctl validate` (schemas from the
// cluster's OpenAPI, custom kinds' specs) before it sends anything, so a
// manifest the server would reject never reaches it half-way through a pass.
#pragma once

#include <string>

#include "common_options.hpp"
#include "desired_set.hpp"

namespace opctl::cli {

// $XDG_CACHE_HOME/opctl/openapi, else ~/.cache/opctl/openapi; empty: no cache.
std::string schema_cache_dir();

// Throws InvalidInputError with every error `opctl validate` would report
// for the set. Warnings about the manifests are left to `opctl validate`;
// those about the cluster (a schema taken from a CRD) go to standard error.
// Validates the set's objects where they are: a copy would double a big
// set's memory.
void validate_for_pass(const CommonOptions& options, DesiredSet& desired);

}  // namespace opctl::cli
