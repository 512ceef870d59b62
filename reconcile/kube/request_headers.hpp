// The header lines of one request: content negotiation and authentication.
// Kept apart from libcurl so what goes on the wire can be tested offline.
#pragma once

#include <string>
#include <vector>

#include "kube/cluster_config.hpp"
#include "kube/credentials.hpp"
#include "kube/http_transport.hpp"

namespace opctl::kube {

// "Accept: ...", "Content-Type: ..." (when the request has one), then
// "Authorization: Bearer ..." when there is a token, otherwise
// "Authorization: Basic ..." when the kubeconfig has a username, and an empty
// "Expect:" (no 100-continue round trip). Never logged: it holds secrets.
std::vector<std::string> request_headers(const HttpRequest& request, const Credential& credential,
                                         const ClusterConfig& cluster);

}  // namespace opctl::kube
