// Whether a Namespace holds objects that are not part of an ApplySet, so
// that pruning the Namespace would not delete someone else's work.
#pragma once

#include <string>
#include <vector>

#include "kube/api_client.hpp"

namespace opctl::apply {

// Up to a few "Kind/name" of objects in `namespace_name` that are not
// labelled part of `applyset_id`. Objects the cluster creates by itself (the
// default ServiceAccount, kube-root-ca.crt, Events, Endpoints, objects with an
// owner) do not count.
std::vector<std::string> foreign_objects_in(kube::ApiClient& client, const std::string& namespace_name,
                                            const std::string& applyset_id);

}  // namespace opctl::apply
