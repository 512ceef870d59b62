#include "apply/home_namespace.hpp"

#include <algorithm>

namespace opctl::apply {

namespace {
kube::ResourceInfo namespace_resource() {
  return kube::core_v1_resource("Namespace", "namespaces", false);
}
}  // namespace

bool create_home_namespace(kube::ApiClient& client, const std::vector<model::Object>& objects,
                           const plan::ApplySetParent& parent, const kube::ApplyOptions& options) {
  auto found = std::find_if(objects.begin(), objects.end(), [&](const model::Object& object) {
    return object.kind() == "Namespace" && object.gvk().group.empty() &&
           object.name() == parent.namespace_name;
  });
  if (found == objects.end()) return false;
  auto live = client.execute(client.get_request(namespace_resource(), "", parent.namespace_name));
  if (live.ok()) return false;
  if (live.status.reason != kube::ApiReason::not_found) throw kube::ApiError(live.status);
  std::vector<model::Object> one{*found};
  plan::label_members(one, parent);  // as the pass would apply it, so the pass finds it unchanged
  auto applied = client.execute(client.apply_request(namespace_resource(), one.front(), options));
  if (!applied.ok()) throw kube::ApiError(applied.status);
  return true;
}

}  // namespace opctl::apply
