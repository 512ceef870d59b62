#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "kube/credentials.hpp"
#include "kube/http_transport.hpp"
#include "kube/rate_limiter.hpp"
#include "model/error.hpp"

namespace opctl::kube {
namespace {

using Clock = std::chrono::steady_clock;

void ensure_curl_initialised() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

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

bool is_retryable_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

// One request in flight: its easy handle and the buffers libcurl writes into.
struct Transfer {
  std::size_t index = 0;
  EasyHandle easy;
  HeaderList headers;
  std::string body;
  std::string retry_after;
  char error[CURL_ERROR_SIZE] = {};
};

std::size_t write_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<Transfer*>(user)->body.append(data, size * count);
  return size * count;
}

std::size_t write_header(char* data, std::size_t size, std::size_t count, void* user) {
  std::string_view line(data, size * count);
  constexpr std::string_view k_name = "retry-after:";
  if (line.size() > k_name.size()) {
    std::string lower(line.substr(0, k_name.size()));
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == k_name) {
      std::string value(line.substr(k_name.size()));
      value.erase(0, value.find_first_not_of(" \t"));
      value.erase(value.find_last_not_of(" \t\r\n") + 1);
      static_cast<Transfer*>(user)->retry_after = value;
    }
  }
  return size * count;
}

struct Pending {
  std::size_t index;
  Clock::time_point not_before;
};

class CurlTransport : public HttpTransport {
 public:
  CurlTransport(const ClusterConfig& cluster, const TransportOptions& options)
      : cluster_(cluster), options_(options), limiter_(options.qps, options.burst), credentials_(cluster) {
    ensure_curl_initialised();
    multi_.reset(curl_multi_init());
    curl_multi_setopt(multi_.get(), CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi_.get(), CURLMOPT_MAX_HOST_CONNECTIONS, long(std::max(1, options.concurrency)));
    base_url_ = cluster.server;
    if (!cluster.tls_server_name.empty()) route_through_server_name();
  }

  std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& requests) override {
    std::vector<HttpResponse> responses(requests.size());
    Credential credential = credentials_.current();
    std::deque<Pending> queue;
    for (std::size_t i = 0; i < requests.size(); ++i) queue.push_back({i, Clock::now()});
    std::vector<std::unique_ptr<Transfer>> running;
    const std::size_t limit = static_cast<std::size_t>(std::max(1, options_.concurrency));
    while (!queue.empty() || !running.empty()) {
      start_ready(requests, queue, running, limit, credential, responses);
      int still_running = 0;
      curl_multi_perform(multi_.get(), &still_running);
      collect_finished(requests, queue, running, responses);
      if (!running.empty()) {
        curl_multi_poll(multi_.get(), nullptr, 0, 50, nullptr);
      } else if (!queue.empty()) {
        std::this_thread::sleep_until(std::min(queue.front().not_before, Clock::now() + std::chrono::milliseconds(50)));
      }
    }
    return responses;
  }

 private:
  // kubeconfig's tls-server-name: ask for that name (SNI and verification)
  // while connecting to the server's real address.
  void route_through_server_name() {
    std::string rest = cluster_.server.substr(cluster_.server.find("://") + 3);
    std::string host_port = rest.substr(0, rest.find('/'));
    std::string port = host_port.find(':') == std::string::npos ? "443" : host_port.substr(host_port.rfind(':') + 1);
    std::string host = host_port.substr(0, host_port.rfind(':'));
    connect_to_ = fmt::format("{}:{}:{}:{}", cluster_.tls_server_name, port, host, port);
    base_url_ = fmt::format("https://{}:{}", cluster_.tls_server_name, port);
  }

  void start_ready(const std::vector<HttpRequest>& requests, std::deque<Pending>& queue,
                   std::vector<std::unique_ptr<Transfer>>& running, std::size_t limit, const Credential& credential,
                   std::vector<HttpResponse>& responses) {
    auto now = Clock::now();
    for (auto it = queue.begin(); it != queue.end() && running.size() < limit;) {
      if (it->not_before > now || !limiter_.try_take(now)) {
        ++it;
        continue;
      }
      auto transfer = make_transfer(requests[it->index], it->index, credential);
      responses[it->index].attempts += 1;
      curl_multi_add_handle(multi_.get(), transfer->easy.get());
      running.push_back(std::move(transfer));
      it = queue.erase(it);
    }
  }

  void collect_finished(const std::vector<HttpRequest>& requests, std::deque<Pending>& queue,
                        std::vector<std::unique_ptr<Transfer>>& running, std::vector<HttpResponse>& responses) {
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_.get(), &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      auto found = std::find_if(running.begin(), running.end(),
                                [&](const auto& transfer) { return transfer->easy.get() == message->easy_handle; });
      if (found == running.end()) continue;
      std::unique_ptr<Transfer> transfer = std::move(*found);
      running.erase(found);
      curl_multi_remove_handle(multi_.get(), transfer->easy.get());
      finish(requests[transfer->index], *transfer, message->data.result, queue, responses[transfer->index]);
    }
  }

  void finish(const HttpRequest& request, Transfer& transfer, CURLcode result, std::deque<Pending>& queue,
              HttpResponse& response) {
    long status = 0;
    curl_easy_getinfo(transfer.easy.get(), CURLINFO_RESPONSE_CODE, &status);
    bool transport_failed = result != CURLE_OK;
    if (options_.verbose)
      std::cerr << fmt::format("opctl: {} {} -> {}\n", request.method, request.path,
                               transport_failed ? std::string(curl_easy_strerror(result)) : std::to_string(status));
    bool retry = transport_failed ? request.retryable : is_retryable_status(status) && (request.retryable || status == 429);
    if (retry && response.attempts < options_.max_attempts) {
      queue.push_back({transfer.index, Clock::now() + backoff(response.attempts, transfer.retry_after)});
      return;
    }
    response.status = transport_failed ? 0 : status;
    response.body = std::move(transfer.body);
    if (transport_failed)
      response.transport_error = fmt::format("{}{}: {}", base_url_, request.path,
                                             transfer.error[0] != '\0' ? transfer.error : curl_easy_strerror(result));
  }

  std::chrono::milliseconds backoff(int attempt, const std::string& retry_after) {
    if (!retry_after.empty() && std::all_of(retry_after.begin(), retry_after.end(), ::isdigit))
      return std::chrono::seconds(std::stoi(retry_after));
    auto base = options_.initial_backoff * (1 << std::min(attempt - 1, 10));
    base = std::min(base, options_.max_backoff);
    std::uniform_int_distribution<long> jitter(0, base.count() / 2);
    return base + std::chrono::milliseconds(jitter(random_));
  }

  std::unique_ptr<Transfer> make_transfer(const HttpRequest& request, std::size_t index, const Credential& credential) {
    auto transfer = std::make_unique<Transfer>();
    transfer->index = index;
    transfer->easy.reset(curl_easy_init());
    CURL* easy = transfer->easy.get();
    std::string url = base_url_ + request.path;
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (!request.body.empty() || request.method == "POST" || request.method == "PATCH" || request.method == "PUT") {
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, long(request.body.size()));
      curl_easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, request.body.c_str());
      curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, ("Accept: " + request.accept).c_str());
    if (!request.content_type.empty()) headers = curl_slist_append(headers, ("Content-Type: " + request.content_type).c_str());
    if (!credential.bearer_token.empty())
      headers = curl_slist_append(headers, ("Authorization: Bearer " + credential.bearer_token).c_str());
    headers = curl_slist_append(headers, "Expect:");
    transfer->headers.reset(headers);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_2TLS));
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, long(options_.request_timeout.count()));
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, long(options_.connect_timeout.count()));
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer->error);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, transfer.get());
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, write_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, transfer.get());
    set_tls(easy, credential);
    return transfer;
  }

  void set_tls(CURL* easy, const Credential& credential) {
    if (!cluster_.ca_pem.empty()) {
      curl_blob ca{const_cast<char*>(cluster_.ca_pem.data()), cluster_.ca_pem.size(), CURL_BLOB_COPY};
      curl_easy_setopt(easy, CURLOPT_CAINFO_BLOB, &ca);
    }
    if (cluster_.insecure_skip_tls_verify) {
      curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (!connect_to_.empty()) {
      connect_list_.reset(curl_slist_append(nullptr, connect_to_.c_str()));
      curl_easy_setopt(easy, CURLOPT_CONNECT_TO, connect_list_.get());
    }
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
    if (!cluster_.username.empty()) {
      curl_easy_setopt(easy, CURLOPT_USERNAME, cluster_.username.c_str());
      curl_easy_setopt(easy, CURLOPT_PASSWORD, cluster_.password.c_str());
    }
  }

  ClusterConfig cluster_;
  TransportOptions options_;
  RateLimiter limiter_;
  CredentialSource credentials_;
  MultiHandle multi_;
  std::string base_url_;
  std::string connect_to_;
  HeaderList connect_list_;
  std::mt19937 random_{std::random_device{}()};
};

}  // namespace

std::unique_ptr<HttpTransport> make_curl_transport(const ClusterConfig& cluster, const TransportOptions& options) {
  return std::make_unique<CurlTransport>(cluster, options);
}

}  // namespace opctl::kube
