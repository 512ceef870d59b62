#include "notify/notifier.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string_view>

#include "model/redaction.hpp"
#include "notify/commit_status.hpp"
#include "notify/message_payload.hpp"
#include "notify/notification_error.hpp"
#include "notify/webhook_signature.hpp"

namespace opctl::notify {
namespace {

using config::NotificationTrigger;
using config::NotificationType;

constexpr std::size_t k_answer_shown = 200;

// A credential file's content without the line break editors and
// `kubectl create secret --from-file` leave.
std::string read_secret_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NotificationError(fmt::format("cannot read {} {}", what, path));
  std::ostringstream content;
  content << in.rdbuf();
  std::string text = content.str();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  if (text.empty()) throw NotificationError(fmt::format("{} {} is empty", what, path));
  return text;
}

std::string read_secret_variable(const std::string& name, const char* what, const NotifierOptions& options) {
  auto value = options.environment ? options.environment(name) : std::nullopt;
  if (!value || value->empty()) throw NotificationError(fmt::format("{} {} is not set", what, name));
  return *value;
}

// The credential of an entry: its token, or for webhook and slack the URL when
// it comes from a file or the environment (a Slack URL is one).
struct Credentials {
  std::string url;
  std::string token;
  std::string signing_key;  // webhook: signs the body
};

Credentials credentials_of(const config::Notification& entry, const NotifierOptions& options) {
  Credentials found;
  found.url = !entry.url_file.empty()  ? read_secret_file(entry.url_file, "urlFile")
              : !entry.url_env.empty() ? read_secret_variable(entry.url_env, "urlEnv", options)
                                       : entry.url;
  if (!found.url.empty() && !found.url.starts_with("http://") && !found.url.starts_with("https://"))
    throw NotificationError(entry.url_file.empty() ? "the URL in urlEnv is not an http:// or https:// URL"
                                                   : "the URL in urlFile is not an http:// or https:// URL");
  if (!entry.token_file.empty()) found.token = read_secret_file(entry.token_file, "tokenFile");
  if (!entry.token_env.empty()) found.token = read_secret_variable(entry.token_env, "tokenEnv", options);
  if (!entry.signing_key_file.empty())
    found.signing_key = read_secret_file(entry.signing_key_file, "signingKeyFile");
  if (!entry.signing_key_env.empty())
    found.signing_key = read_secret_variable(entry.signing_key_env, "signingKeyEnv", options);
  return found;
}

bool worth_retrying(const HttpResponse& response) {
  return response.status == 0 || response.status == 429 || response.status >= 500;
}

// What went wrong, with every credential of the entry replaced by ***.
std::string failure_text(const HttpResponse& response, const std::vector<std::string>& secrets) {
  if (response.status == 0) return model::redact_credentials(response.error, secrets);
  std::string answer = model::redact_credentials(response.body.substr(0, k_answer_shown), secrets);
  std::replace(answer.begin(), answer.end(), '\n', ' ');
  return answer.empty() ? fmt::format("HTTP {}", response.status)
                        : fmt::format("HTTP {}: {}", response.status, answer);
}

void send_one(const config::Notification& entry, const PassEvent& event, const NotifierOptions& options) {
  std::string label = notification_label(entry, options.config_file);
  HttpRequest request;
  try {
    request = notification_request(entry, event, options);
  } catch (const NotificationError& error) {
    options.on_warning(fmt::format("{} was not sent: {}", label, error.what()));
    return;
  }
  std::vector<std::string> secrets;
  if (entry.url.empty()) secrets.push_back(request.url);
  for (const auto& header : request.headers)
    for (std::string_view prefix : {"Authorization: Bearer ", "PRIVATE-TOKEN: "})
      if (header.starts_with(prefix)) secrets.push_back(header.substr(prefix.size()));
  std::chrono::milliseconds backoff{1000};
  for (int attempt = 0;; ++attempt) {
    HttpResponse response = options.poster->post(request, entry.timeout);
    if (response.status >= 200 && response.status <= 299) {
      if (options.on_sent) options.on_sent(fmt::format("{} sent (HTTP {})", label, response.status));
      return;
    }
    if (!worth_retrying(response) || attempt >= entry.retries) {
      options.on_warning(fmt::format("{} was not sent{}: {}", label,
                                     attempt > 0 ? fmt::format(" ({} attempts)", attempt + 1) : "",
                                     failure_text(response, secrets)));
      return;
    }
    options.clock->sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(10000));
  }
}

}  // namespace

bool wants(const config::Notification& entry, const PassEvent& event) {
  return std::any_of(entry.triggers.begin(), entry.triggers.end(), [&](NotificationTrigger trigger) {
    switch (trigger) {
      case NotificationTrigger::failure:
        return !event.succeeded();
      case NotificationTrigger::change:
        return event.changed();
      case NotificationTrigger::success:
        return event.succeeded();
      case NotificationTrigger::always:
        return true;
    }
    return false;
  });
}

std::string notification_label(const config::Notification& entry, const std::string& config_file) {
  std::string where = fmt::format("{}:{}", config_file.empty() ? "opctl.yaml" : config_file, entry.line);
  if (!entry.name.empty()) return fmt::format("notification {} ({})", entry.name, where);
  return fmt::format("the {} notification ({})", config::to_string(entry.type), where);
}

HttpRequest notification_request(const config::Notification& entry, const PassEvent& event,
                                 const NotifierOptions& options) {
  Credentials credentials = credentials_of(entry, options);
  if (entry.type == NotificationType::github || entry.type == NotificationType::gitlab)
    return commit_status_request(entry, event, credentials.token);
  HttpRequest request;
  request.url = credentials.url;
  if (entry.type == NotificationType::slack) {
    request.body = slack_payload(entry, event).dump();
  } else {
    request.body = webhook_payload(entry, event).dump();
    if (!credentials.token.empty()) request.headers.push_back("Authorization: Bearer " + credentials.token);
    if (!credentials.signing_key.empty())
      request.headers.push_back(std::string(k_signature_header) + ": " +
                                webhook_signature(credentials.signing_key, request.body));
  }
  return request;
}

void send_notifications(const std::vector<config::Notification>& entries, const PassEvent& event,
                        const NotifierOptions& options) {
  for (const auto& entry : entries)
    if (wants(entry, event)) send_one(entry, event, options);
}

}  // namespace opctl::notify
