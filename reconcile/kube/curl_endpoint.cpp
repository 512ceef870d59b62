#include "kube/curl_endpoint.hpp"

#include <fmt/format.h>

#include <mutex>

#include "kube/request_headers.hpp"

namespace opctl::kube {
namespace {

std::once_flag g_curl_initialised;

// Splits "https://host:port/prefix" into host, port and "/prefix".
struct ServerUrl {
  std::string host, port, path;
};

ServerUrl split_server(const std::string& server) {
  std::size_t scheme = server.find("://");
  std::string rest = scheme == std::string::npos ? server : server.substr(scheme + 3);
  std::size_t slash = rest.find('/');
  std::string host_port = rest.substr(0, slash);
  ServerUrl url;
  url.path = slash == std::string::npos ? "" : rest.substr(slash);
  std::size_t colon = host_port.rfind(':');
  bool has_port = colon != std::string::npos && host_port.find(']', colon) == std::string::npos;
  url.host = has_port ? host_port.substr(0, colon) : host_port;
  url.port = has_port ? host_port.substr(colon + 1) : "443";
  return url;
}

}  // namespace

void ensure_curl_initialised() {
  std::call_once(g_curl_initialised, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CurlEndpoint::CurlEndpoint(const ClusterConfig& cluster, const TransportOptions& options)
    : cluster_(cluster), options_(options), base_url_(cluster.server) {
  ensure_curl_initialised();
  if (!cluster_.tls_server_name.empty()) route_through_server_name();
}

// kubeconfig's tls-server-name: ask for that name (SNI and verification)
// while connecting to the server's real address.
void CurlEndpoint::route_through_server_name() {
  ServerUrl url = split_server(cluster_.server);
  std::string rule = fmt::format("{}:{}:{}:{}", cluster_.tls_server_name, url.port, url.host, url.port);
  connect_to_.reset(curl_slist_append(nullptr, rule.c_str()));
  base_url_ = fmt::format("https://{}:{}{}", cluster_.tls_server_name, url.port, url.path);
}

EasyHandle CurlEndpoint::open(const HttpRequest& request, const Credential& credential,
                              HeaderList& headers) const {
  EasyHandle handle(curl_easy_init());
  CURL* easy = handle.get();
  std::string url = base_url_ + request.path;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (!request.body.empty() || request.method == "POST" || request.method == "PATCH" ||
      request.method == "PUT") {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, long(request.body.size()));
    curl_easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, request.body.c_str());
  }
  curl_slist* list = nullptr;
  for (const auto& line : request_headers(request, credential, cluster_))
    list = curl_slist_append(list, line.c_str());
  headers.reset(list);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, options_.user_agent.c_str());
  if (is_read(request)) {
    // Reads take HTTP/1.1 connections of their own (curl_transport.cpp keeps
    // them in a pool apart from the writes'). Multiplexed as HTTP/2 streams,
    // libcurl 7.88 (Debian 12) now and then delivered all but the end of one
    // LIST page and left it waiting for a timeout: a pass reads 16 large pages
    // at once. The apiserver had sent that page in ~0.1 s; over HTTP/1.1 the
    // same reads never stalled and took as long.
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
  } else {
    // Writes have small answers and stay multiplexed on one connection, which
    // was faster for them than a connection each.
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_2TLS));
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
  }
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, long(options_.request_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, long(options_.connect_timeout.count()));
  auto stall_seconds = std::chrono::duration_cast<std::chrono::seconds>(options_.read_stall_timeout).count();
  if (is_read(request) && stall_seconds > 0) {
    // Less than a byte a second for that long: a stalled stream, retried as a timeout.
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, long(stall_seconds));
  }
  set_tls(easy, credential);
  return handle;
}

void CurlEndpoint::set_tls(CURL* easy, const Credential& credential) const {
  if (!cluster_.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(cluster_.ca_pem.data()), cluster_.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(easy, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (cluster_.insecure_skip_tls_verify) {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (connect_to_) curl_easy_setopt(easy, CURLOPT_CONNECT_TO, connect_to_.get());
  if (!cluster_.proxy_url.empty()) curl_easy_setopt(easy, CURLOPT_PROXY, cluster_.proxy_url.c_str());
  if (!credential.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(credential.client_cert_pem.data()), credential.client_cert_pem.size(),
                   CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(credential.client_key_pem.data()), credential.client_key_pem.size(),
                  CURL_BLOB_COPY};
    curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(easy, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
    curl_easy_setopt(easy, CURLOPT_SSLKEY_BLOB, &key);
  }
}

}  // namespace opctl::kube
