// The URL transport: one libcurl easy POST per call (hooks are called once
// per resource and pass, so no connection pool is needed).
#include <curl/curl.h>
#include <fmt/format.h>

#include <memory>

#include "config/run_config.hpp"
#include "kinds/hook/hook_transport.hpp"

namespace opctl::kinds::hook {
namespace {

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

std::size_t append(char* data, std::size_t size, std::size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

class HttpTransport : public HookTransport {
 public:
  HttpTransport(std::string url, std::chrono::milliseconds timeout)
      : url_(std::move(url)), timeout_(timeout) {}

  std::string call(const std::string& request) override {
    std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
    if (!curl) throw HookError("cannot initialise libcurl");
    std::unique_ptr<curl_slist, SlistDeleter> headers(curl_slist_append(
        curl_slist_append(nullptr, "Content-Type: application/json"), "Accept: application/json"));
    std::string body;
    curl_easy_setopt(curl.get(), CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, request.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.size()));
    curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_.count()));
    curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "opctl-hook");
    CURLcode code = curl_easy_perform(curl.get());
    if (code == CURLE_OPERATION_TIMEDOUT)
      throw HookError(
          fmt::format("the hook {} did not answer within {}", url_, config::format_duration(timeout_)));
    if (code != CURLE_OK)
      throw HookError(fmt::format("the hook {} failed: {}", url_, curl_easy_strerror(code)));
    long status = 0;
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299)
      throw HookError(fmt::format("the hook {} answered HTTP {}: {}", url_, status, body.substr(0, 2000)));
    return body;
  }

 private:
  std::string url_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

std::unique_ptr<HookTransport> http_transport(std::string url, std::chrono::milliseconds timeout) {
  return std::make_unique<HttpTransport>(std::move(url), timeout);
}

}  // namespace opctl::kinds::hook
