// libcurl plumbing of the transport: RAII handles and
// the settings that make an easy handle reach this cluster (URL, TLS, proxy,
// credentials, timeouts). Internal to the kube layer.
#pragma once

#include <curl/curl.h>

#include <memory>
#include <string>

#include "kube/cluster_config.hpp"
#include "kube/credentials.hpp"
#include "kube/http_transport.hpp"

namespace opctl::kube {

struct EasyDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct MultiDeleter {
  void operator()(CURLM* handle) const { curl_multi_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;
using MultiHandle = std::unique_ptr<CURLM, MultiDeleter>;
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;

// curl_global_init, once per process.
void ensure_curl_initialised();

class CurlEndpoint {
 public:
  CurlEndpoint(const ClusterConfig& cluster, const TransportOptions& options);

  // A new easy handle for `request` with everything but the write callbacks
  // set. `headers` receives the header list, which must outlive the transfer.
  EasyHandle open(const HttpRequest& request, const Credential& credential, HeaderList& headers) const;
  // "https://host:port" plus any path prefix of the server URL, for messages.
  const std::string& base_url() const { return base_url_; }

 private:
  void route_through_server_name();
  void set_tls(CURL* easy, const Credential& credential) const;

  ClusterConfig cluster_;
  TransportOptions options_;
  std::string base_url_;
  HeaderList connect_to_;  // CURLOPT_CONNECT_TO for tls-server-name
};

}  // namespace opctl::kube
