#include "metrics_push.hpp"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "model/base64.hpp"
#include "model/error.hpp"
#include "model/redaction.hpp"
#include "notify/http_poster.hpp"

namespace opctl::cli {
namespace {

// A push that does not arrive within this is abandoned: it must not hold up the run (or its CronJob).
constexpr std::chrono::seconds k_push_timeout{30};
// How much of a refusal's answer its warning quotes.
constexpr std::size_t k_answer_quoted = 2000;

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

// The Authorization header's value: the file's (or the variable's) first line, spaces around it dropped.
std::string authorization_of(const MetricsPush& push) {
  std::string line, from;
  if (!push.auth_file.empty()) {
    std::ifstream in(push.auth_file);
    if (!in || !std::getline(in, line))
      throw Error(ErrorCategory::invalid_input,
                  fmt::format("cannot read the metrics push credentials {}", push.auth_file));
    from = push.auth_file;
  } else {
    const char* value = std::getenv(push.auth_env.c_str());
    if (value == nullptr)
      throw Error(ErrorCategory::invalid_input,
                  fmt::format("the metrics push credentials: the environment variable {} is not set "
                              "(spec.metrics.push.authEnv)",
                              push.auth_env));
    std::string text = value;
    line = text.substr(0, text.find('\n'));
    from = "in the environment variable " + push.auth_env;
  }
  auto first = line.find_first_not_of(" \t\r");
  auto last = line.find_last_not_of(" \t\r");
  if (first == std::string::npos)
    throw Error(ErrorCategory::invalid_input, fmt::format("the metrics push credentials {} are empty", from));
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
  notify::HttpRequest request;
  request.url = pushgateway_group_url(push.url, set);
  request.method = "PUT";
  request.content_type = "text/plain; version=0.0.4; charset=utf-8";
  request.body = text;
  std::string shown = model::redact_credentials(request.url);
  std::string header_value = push.auth_file.empty() && push.auth_env.empty() ? "" : authorization_of(push);
  if (!header_value.empty()) request.headers.push_back("Authorization: " + header_value);
  notify::HttpResponse response = notify::curl_poster()->post(request, k_push_timeout);
  if (!response.error.empty())
    throw ClusterError(fmt::format("cannot push the metrics to {}: {}", shown, response.error));
  if (response.status < 200 || response.status > 299) {
    std::vector<std::string> secrets;
    if (!header_value.empty()) secrets.push_back(header_value);
    std::string body = response.body.substr(0, k_answer_quoted);
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r'))
      body.pop_back();
    throw ClusterError(fmt::format("the Pushgateway {} answered HTTP {}{}", shown, response.status,
                                   body.empty() ? "" : ": " + model::redact_credentials(body, secrets)));
  }
}

}  // namespace opctl::cli
