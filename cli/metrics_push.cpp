#include "metrics_push.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <memory>
#include <vector>

#include "model/base64.hpp"
#include "model/error.hpp"
#include "model/redaction.hpp"

namespace opctl::cli {
namespace {

struct EasyDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

// A push that does not arrive within this is abandoned: it must not hold up the run (or its CronJob).
constexpr long k_push_timeout_ms = 30000;

std::string percent_encoded(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::size_t discard_or_keep(char* data, std::size_t size, std::size_t count, void* target) {
  auto* body = static_cast<std::string*>(target);
  if (body->size() < 2000) body->append(data, size * count);
  return size * count;
}

// The Authorization header's value: the file's first line, spaces around it dropped.
std::string authorization_of(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line))
    throw Error(ErrorCategory::invalid_input,
                fmt::format("cannot read the metrics push credentials {}", file));
  auto first = line.find_first_not_of(" \t\r");
  auto last = line.find_last_not_of(" \t\r");
  if (first == std::string::npos)
    throw Error(ErrorCategory::invalid_input, fmt::format("the metrics push credentials {} are empty", file));
  return line.substr(first, last - first + 1);
}

}  // namespace

std::string pushgateway_group_url(const std::string& url, const std::string& set) {
  std::string base = url;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  std::string group = set.empty() || set.find('/') != std::string::npos
                          ? "set@base64/" + (set.empty() ? "=" : model::base64_url_encode_unpadded(set))
                          : "set/" + percent_encoded(set);
  return base + "/metrics/job/opctl/" + group;
}

void push_metrics(const MetricsPush& push, const std::string& set, const std::string& text) {
  std::string url = pushgateway_group_url(push.url, set);
  std::string shown = model::redact_credentials(url);
  std::string header_value = push.auth_file.empty() ? "" : authorization_of(push.auth_file);
  std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
  if (!curl) throw ClusterError("cannot initialise libcurl to push the metrics");
  curl_slist* list = curl_slist_append(nullptr, "Content-Type: text/plain; version=0.0.4; charset=utf-8");
  std::unique_ptr<curl_slist, SlistDeleter> headers(list);
  std::string authorization = "Authorization: " + header_value;
  if (!header_value.empty()) headers.reset(curl_slist_append(headers.release(), authorization.c_str()));
  std::string body;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, "PUT");
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, text.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(text.size()));
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, k_push_timeout_ms);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, discard_or_keep);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "opctl");
  CURLcode code = curl_easy_perform(curl.get());
  if (code != CURLE_OK)
    throw ClusterError(fmt::format("cannot push the metrics to {}: {}", shown, curl_easy_strerror(code)));
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) {
    std::vector<std::string> secrets;
    if (!header_value.empty()) secrets.push_back(header_value);
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r'))
      body.pop_back();
    throw ClusterError(fmt::format("the Pushgateway {} answered HTTP {}{}", shown, status,
                                   body.empty() ? "" : ": " + model::redact_credentials(body, secrets)));
  }
}

}  // namespace opctl::cli
