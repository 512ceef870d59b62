#include "validate/live_crds.hpp"

#include "kube/api_error.hpp"

namespace opctl::validate {

LiveCrdLookup live_crd_lookup(kube::HttpTransport& transport, kube::RestMapper& mapper) {
  return [&transport, &mapper](const model::GroupVersionKind& gvk) -> std::optional<model::Json> {
    if (gvk.group.empty()) return std::nullopt;  // the core group has no CRDs
    auto resource = mapper.find(gvk);
    if (!resource) return std::nullopt;
    kube::HttpRequest request;
    request.path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" +
                   kube::url_escape(resource->resource + "." + gvk.group);
    auto response = transport.send(request);
    auto status = kube::decode_status(response, "GET " + request.path);
    // Forbidden too: without leave to read CRDs, the published document is all there is.
    if (status.reason == kube::ApiReason::not_found || status.reason == kube::ApiReason::forbidden)
      return std::nullopt;
    if (!status.ok()) throw kube::ApiError(status);
    model::Json crd = model::Json::parse(response.body, nullptr, false);
    if (crd.is_discarded() || !crd.is_object()) return std::nullopt;
    return crd;
  };
}

}  // namespace opctl::validate
