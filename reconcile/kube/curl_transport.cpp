// The libcurl transport: batches over two multi handles (reads on a pool of
// HTTP/1.1 connections, writes as HTTP/2 streams on one), bounded
// concurrency, a rate adapted to the server's pushback or a fixed token
// bucket, retries.
#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <iostream>
#include <random>
#include <thread>

#include "kube/adaptive_rate.hpp"
#include "kube/credentials.hpp"
#include "kube/curl_endpoint.hpp"
#include "kube/http_transport.hpp"
#include "kube/retry_policy.hpp"
#include "model/redaction.hpp"

namespace opctl::kube {
namespace {

using Clock = std::chrono::steady_clock;

// The server's certificate (or our CA file) is wrong: the same on every attempt.
bool is_tls_verification_failure(CURLcode result) {
  switch (result) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_CRL_BADFILE:
      return true;
    default:
      return false;
  }
}

// One attempt in flight: its easy handle and the buffers libcurl writes into.
struct Transfer {
  std::size_t index = 0;
  CURLM* pool = nullptr;  // the multi handle it runs on
  EasyHandle easy;
  HeaderList headers;
  std::string body;
  Clock::time_point started;
  char error[CURL_ERROR_SIZE] = {};
};

std::size_t write_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<Transfer*>(user)->body.append(data, size * count);
  return size * count;
}

// The answer's Retry-After, as libcurl reads it (delay-seconds or an HTTP date, as seconds from now): `sent`
// says whether there was one at all (a 503 with one is the server pushing back); the wait is capped at
// k_max_retry_after.
std::optional<std::chrono::seconds> retry_after_of(CURL* easy, bool& sent) {
  curl_header* header = nullptr;
  sent = curl_easy_header(easy, "Retry-After", 0, CURLH_HEADER, -1, &header) == CURLHE_OK;
  curl_off_t seconds = -1;
  if (!sent || curl_easy_getinfo(easy, CURLINFO_RETRY_AFTER, &seconds) != CURLE_OK || seconds < 0)
    return std::nullopt;
  return std::min(std::chrono::seconds(seconds), k_max_retry_after);
}

struct Pending {
  std::size_t index;
  Clock::time_point not_before;
};

class CurlTransport : public HttpTransport {
 public:
  CurlTransport(const ClusterConfig& cluster, const TransportOptions& options)
      : options_(options),
        endpoint_(cluster, options),
        rate_(options.qps, options.burst),
        credentials_(cluster) {
    // Reads and writes keep their connections apart: libcurl would put a
    // write that asks for HTTP/2 on an idle HTTP/1.1 connection of a read.
    // Reads: a connection per read in flight, all kept open for the next batch
    // (libcurl would otherwise keep 4 per transfer still running, so a batch's
    // last reads would close the rest). Writes: streams on one connection.
    long connections = long(std::max(1, options.concurrency));
    reads_.reset(curl_multi_init());
    curl_multi_setopt(reads_.get(), CURLMOPT_PIPELINING, long(CURLPIPE_NOTHING));
    curl_multi_setopt(reads_.get(), CURLMOPT_MAX_HOST_CONNECTIONS, connections);
    curl_multi_setopt(reads_.get(), CURLMOPT_MAXCONNECTS, connections);
    writes_.reset(curl_multi_init());
    curl_multi_setopt(writes_.get(), CURLMOPT_PIPELINING, long(CURLPIPE_MULTIPLEX));
    curl_multi_setopt(writes_.get(), CURLMOPT_MAX_HOST_CONNECTIONS, connections);
    if (cluster.insecure_skip_tls_verify)
      log(fmt::format(
          "opctl: warning: TLS certificate verification is disabled for {} (insecure-skip-tls-verify "
          "in {}); anyone on the network path can read and change the traffic",
          model::redact_credentials(cluster.server),
          cluster.source.empty() ? "the kubeconfig" : cluster.source));
  }

  ~CurlTransport() override { remove_running(); }

  std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& requests) override {
    std::vector<HttpResponse> responses(requests.size());
    Credential credential = credentials_.current();
    std::deque<Pending> queue;
    for (std::size_t i = 0; i < requests.size(); ++i)
      queue.push_back({i, Clock::now()});
    const std::size_t limit = static_cast<std::size_t>(std::max(1, options_.concurrency));
    try {
      while (!queue.empty() || !running_.empty()) {
        start_ready(requests, queue, limit, credential, responses);
        for (CURLM* pool : {reads_.get(), writes_.get()}) {
          int still_running = 0;
          curl_multi_perform(pool, &still_running);
          collect_finished(pool, requests, queue, responses);
        }
        if (!running_.empty()) {
          wait_for_activity();
        } else if (!queue.empty()) {
          std::this_thread::sleep_until(
              std::min(earliest(queue), Clock::now() + std::chrono::milliseconds(50)));
        }
      }
    } catch (...) {
      remove_running();
      throw;
    }
    return responses;
  }

  TransportStats stats() const override { return stats_; }

 private:
  // Until a socket of a running transfer is ready or 50 ms pass. A batch of
  // reads and writes together (rare) has both pools to watch: each in turn,
  // briefly.
  void wait_for_activity() {
    bool reading = false, writing = false;
    for (const auto& transfer : running_)
      (transfer->pool == reads_.get() ? reading : writing) = true;
    if (reading && writing) {
      curl_multi_poll(reads_.get(), nullptr, 0, 5, nullptr);
      curl_multi_poll(writes_.get(), nullptr, 0, 5, nullptr);
    } else {
      curl_multi_poll(reading ? reads_.get() : writes_.get(), nullptr, 0, 50, nullptr);
    }
  }

  void log(const std::string& line) const {
    if (options_.log) {
      options_.log(line);
    } else {
      std::cerr << line << '\n';
    }
  }

  static Clock::time_point earliest(const std::deque<Pending>& queue) {
    auto first = std::min_element(queue.begin(), queue.end(), [](const Pending& a, const Pending& b) {
      return a.not_before < b.not_before;
    });
    return first->not_before;
  }

  void start_ready(const std::vector<HttpRequest>& requests, std::deque<Pending>& queue, std::size_t limit,
                   const Credential& credential, std::vector<HttpResponse>& responses) {
    auto now = Clock::now();
    for (auto it = queue.begin(); it != queue.end() && running_.size() < limit;) {
      if (it->not_before > now) {
        ++it;
        continue;
      }
      if (!rate_.try_take(now)) return;  // nothing else may start before `now` moves on
      auto transfer = make_transfer(requests[it->index], it->index, credential);
      transfer->started = now;
      responses[it->index].attempts += 1;
      stats_.requests += 1;
      if (responses[it->index].attempts > 1) stats_.retries += 1;
      transfer->pool = is_read(requests[it->index]) ? reads_.get() : writes_.get();
      curl_multi_add_handle(transfer->pool, transfer->easy.get());
      running_.push_back(std::move(transfer));
      it = queue.erase(it);
    }
  }

  void collect_finished(CURLM* pool, const std::vector<HttpRequest>& requests, std::deque<Pending>& queue,
                        std::vector<HttpResponse>& responses) {
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(pool, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      auto found = std::find_if(running_.begin(), running_.end(), [&](const auto& transfer) {
        return transfer->easy.get() == message->easy_handle;
      });
      if (found == running_.end()) continue;
      std::unique_ptr<Transfer> transfer = std::move(*found);
      running_.erase(found);
      CURLcode result = message->data.result;  // `message` is invalid once the handle is removed
      curl_multi_remove_handle(pool, transfer->easy.get());
      finish(requests[transfer->index], *transfer, result, queue, responses[transfer->index]);
    }
  }

  void finish(const HttpRequest& request, Transfer& transfer, CURLcode result, std::deque<Pending>& queue,
              HttpResponse& response) {
    long status = 0;
    if (result == CURLE_OK) curl_easy_getinfo(transfer.easy.get(), CURLINFO_RESPONSE_CODE, &status);
    count_connection(transfer.easy.get());
    std::string error = result == CURLE_OK          ? ""
                        : transfer.error[0] != '\0' ? std::string(transfer.error)
                                                    : std::string(curl_easy_strerror(result));
    if (status == 401) credentials_.expire();  // a plugin's token may have been revoked early
    bool tls_failure = is_tls_verification_failure(result);
    bool retry = !tls_failure && should_retry(request, status) && response.attempts < options_.max_attempts;
    if (options_.verbose)
      log(fmt::format("opctl: {} {} -> {}{}", request.method, request.path,
                      status == 0 ? error : std::to_string(status),
                      retry ? fmt::format(" (attempt {}, will retry)", response.attempts) : ""));
    bool retry_after_sent = false;
    auto retry_after = retry_after_of(transfer.easy.get(), retry_after_sent);
    adapt_rate(status, retry_after_sent, transfer);
    if (retry) {
      auto delay = retry_delay(response.attempts, retry_after, options_, random_);
      queue.push_back({transfer.index, Clock::now() + delay});
      return;
    }
    response.status = status;
    if (status != 0) response.body = std::move(transfer.body);
    if (status == 0) response.transport_error = describe_failure(request, error, tls_failure);
  }

  // Lets the rate hear the server's answer; -v says when it changed the limit.
  void adapt_rate(long status, bool has_retry_after, const Transfer& transfer) {
    auto change = rate_.on_answer({status, has_retry_after, transfer.started}, Clock::now());
    if (change && options_.verbose) log(describe(*change));
  }

  std::string describe_failure(const HttpRequest& request, const std::string& error,
                               bool tls_verification_failed) const {
    std::string text =
        fmt::format("{}{}: {}", model::redact_credentials(endpoint_.base_url()), request.path, error);
    if (tls_verification_failed)
      return text +
             " (the API server's certificate could not be verified: check certificate-authority in the "
             "kubeconfig; not retried, a retry cannot change a certificate)";
    if (!request.retryable)
      text += fmt::format(
          " (not retried: the {} may have reached the server, so sending it again could apply it "
          "twice)",
          request.method);
    return text;
  }

  void count_connection(CURL* easy) {
    long version = 0, connects = 0;
    curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &version);
    curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &connects);
    if (version == CURL_HTTP_VERSION_2_0) stats_.http2_responses += 1;
    stats_.connections += static_cast<std::uint64_t>(std::max(0L, connects));
  }

  std::unique_ptr<Transfer> make_transfer(const HttpRequest& request, std::size_t index,
                                          const Credential& credential) {
    auto transfer = std::make_unique<Transfer>();
    transfer->index = index;
    transfer->easy = endpoint_.open(request, credential, transfer->headers);
    CURL* easy = transfer->easy.get();
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer->error);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, transfer.get());
    return transfer;
  }

  // Takes every running transfer off the multi handle before it is freed.
  void remove_running() {
    for (auto& transfer : running_)
      curl_multi_remove_handle(transfer->pool, transfer->easy.get());
    running_.clear();
  }

  TransportOptions options_;
  CurlEndpoint endpoint_;
  AdaptiveRate rate_;
  CredentialSource credentials_;
  MultiHandle reads_;   // GETs: HTTP/1.1, a connection each
  MultiHandle writes_;  // everything else: HTTP/2 streams on one connection
  std::vector<std::unique_ptr<Transfer>> running_;
  TransportStats stats_;
  std::mt19937 random_{std::random_device{}()};
};

}  // namespace

std::unique_ptr<HttpTransport> make_curl_transport(const ClusterConfig& cluster,
                                                   const TransportOptions& options) {
  return std::make_unique<CurlTransport>(cluster, options);
}

}  // namespace opctl::kube
