// The cluster's own CustomResourceDefinitions, read one by one, for custom
// resources whose group-version has no published OpenAPI document to check
// them with (not yet published, or still being rebuilt after a CRD changed).
#pragma once

#include <functional>
#include <optional>

#include "kube/http_transport.hpp"
#include "kube/rest_mapper.hpp"
#include "model/object.hpp"

namespace opctl::validate {

// The CRD that serves a kind; nullopt when none does (a built-in or an
// aggregated kind, or one the cluster does not serve).
using LiveCrdLookup = std::function<std::optional<model::Json>(const model::GroupVersionKind&)>;

// GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/<plural>.<group>,
// the plural from discovery. A 404 or 403 is no CRD; other failures throw
// kube::ApiError.
LiveCrdLookup live_crd_lookup(kube::HttpTransport& transport, kube::RestMapper& mapper);

}  // namespace opctl::validate
