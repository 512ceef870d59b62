#include "resource_lookup.hpp"

#include <fmt/format.h>

#include "kube/api_error.hpp"
#include "model/error.hpp"

namespace opctl::cli {

kube::ResourceInfo resource_or_fail(kube::ApiClient& client, const model::GroupVersionKind& gvk) {
  auto info = client.mapper().find(gvk);
  if (!info)
    throw ClusterError(
        fmt::format("the cluster does not serve {} {}: install the CRDs first (opctl crds | kubectl "
                    "apply --server-side -f -)",
                    gvk.api_version(), gvk.kind));
  return *info;
}

model::Json get_or_fail(kube::ApiClient& client, const kube::ResourceInfo& info,
                        const std::string& namespace_name, const std::string& name) {
  auto result = client.execute(client.get_request(info, namespace_name, name));
  if (result.status.reason == kube::ApiReason::not_found)
    throw ClusterError(fmt::format("{} {}/{} not found", info.gvk.kind, namespace_name, name));
  if (!result.ok()) throw kube::ApiError(result.status);
  return result.object;
}

}  // namespace opctl::cli
