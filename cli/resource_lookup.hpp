// Reading one named object for the commands that act on a single custom
// resource (backup, promote), with errors that tell the user what to do.
#pragma once

#include <string>

#include "kube/api_client.hpp"
#include "model/object.hpp"

namespace opctl::cli {

// The resource serving `gvk`; a ClusterError naming `opctl crds` when the
// cluster does not serve it.
kube::ResourceInfo resource_or_fail(kube::ApiClient& client, const model::GroupVersionKind& gvk);

// The live object; a ClusterError when it does not exist, an ApiError for
// any other failure.
model::Json get_or_fail(kube::ApiClient& client, const kube::ResourceInfo& info,
                        const std::string& namespace_name, const std::string& name);

}  // namespace opctl::cli
