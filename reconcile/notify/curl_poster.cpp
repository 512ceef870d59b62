// HttpPoster on libcurl's easy interface. Errors are returned, not thrown: a
// notification that fails is a warning, and the notifier decides on retries.
#include <curl/curl.h>

#include <algorithm>
#include <memory>

#include "notify/http_poster.hpp"

namespace opctl::notify {
namespace {

constexpr std::size_t k_body_kept = 4096;

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

std::size_t keep_start(char* data, std::size_t size, std::size_t count, void* target) {
  auto& body = *static_cast<std::string*>(target);
  if (body.size() < k_body_kept) body.append(data, std::min(size * count, k_body_kept - body.size()));
  return size * count;
}

class CurlPoster final : public HttpPoster {
 public:
  HttpResponse post(const HttpRequest& request, std::chrono::milliseconds timeout) override {
    HttpResponse response;
    std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
    if (!curl) {
      response.error = "cannot initialise libcurl";
      return response;
    }
    std::string content_type = "Content-Type: " + request.content_type;
    curl_slist* list = curl_slist_append(nullptr, content_type.c_str());
    // No "Expect: 100-continue" for a body over 1 KiB: a receiver that never answers it costs a second.
    list = curl_slist_append(list, "Expect:");
    for (const auto& header : request.headers)
      list = curl_slist_append(list, header.c_str());
    std::unique_ptr<curl_slist, SlistDeleter> headers(list);
    curl_easy_setopt(curl.get(), CURLOPT_URL, request.url.c_str());
    if (request.method != "POST") curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, request.method.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    // A redirect would resend the credential to wherever it points.
    curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, keep_start);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "opctl");
    CURLcode code = curl_easy_perform(curl.get());
    if (code != CURLE_OK) {
      response.error = curl_easy_strerror(code);
      return response;
    }
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &response.status);
    return response;
  }
};

}  // namespace

std::unique_ptr<HttpPoster> curl_poster() {
  return std::make_unique<CurlPoster>();
}

}  // namespace opctl::notify
