#include "kube/request_headers.hpp"

#include "model/base64.hpp"

namespace opctl::kube {

std::vector<std::string> request_headers(const HttpRequest& request, const Credential& credential,
                                         const ClusterConfig& cluster) {
  std::vector<std::string> headers{"Accept: " + request.accept};
  if (!request.content_type.empty()) headers.push_back("Content-Type: " + request.content_type);
  // A token wins over basic auth, as in client-go, which refuses to send both.
  if (!credential.bearer_token.empty()) {
    headers.push_back("Authorization: Bearer " + credential.bearer_token);
  } else if (!cluster.username.empty()) {
    headers.push_back("Authorization: Basic " +
                      model::base64_encode(cluster.username + ":" + cluster.password));
  }
  headers.push_back("Expect:");
  return headers;
}

}  // namespace opctl::kube
