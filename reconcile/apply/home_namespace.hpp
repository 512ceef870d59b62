// The config's namespace holds the Lease and the ApplySet parent. When the
// desired set itself contains that Namespace, the first pass creates it
// before taking the Lease; otherwise that pass could never start.
#pragma once

#include <vector>

#include "kube/api_client.hpp"
#include "model/object.hpp"
#include "plan/applyset.hpp"

namespace opctl::apply {

// Server-side applies the set's Namespace named parent.namespace_name (as a
// member of the set) when it does not exist yet; true when it did so. Does
// nothing when the set has no such Namespace. Throws ApiError on failure.
bool create_home_namespace(kube::ApiClient& client, const std::vector<model::Object>& objects,
                           const plan::ApplySetParent& parent, const kube::ApplyOptions& options);

}  // namespace opctl::apply
