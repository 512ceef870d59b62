#include "notify/commit_status.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "model/object.hpp"
#include "notify/message_payload.hpp"
#include "notify/notification_error.hpp"
#include "notify/repository_url.hpp"

namespace opctl::notify {
namespace {

bool is_github(const config::Notification& entry) {
  return entry.type == config::NotificationType::github;
}

// Cut at a character boundary: the APIs refuse invalid UTF-8.
std::string truncated(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit - 3;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  return text.substr(0, end) + "...";
}

// GitLab takes a project's path as its id with every '/' encoded.
std::string path_segment(const std::string& text) {
  std::string encoded;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      encoded += static_cast<char>(c);
    else
      encoded += fmt::format("%{:02X}", c);
  }
  return encoded;
}

std::string repository_of(const config::Notification& entry, const PassEvent& event) {
  if (!entry.repository.empty()) return entry.repository;
  auto parsed = parse_repository_url(event.repo);
  if (!parsed || (is_github(entry) && std::count(parsed->path.begin(), parsed->path.end(), '/') != 1))
    throw NotificationError(fmt::format("cannot tell the {} from the source (set {} in the entry)",
                                        is_github(entry) ? "repository" : "project",
                                        is_github(entry) ? "repository: owner/name" : "project"));
  return parsed->path;
}

// GitHub: success, failure, error (the pass was stopped); GitLab: success,
// failed, canceled.
std::string state_of(const config::Notification& entry, const PassEvent& event) {
  if (event.succeeded()) return "success";
  if (event.result == "interrupted") return is_github(entry) ? "error" : "canceled";
  return is_github(entry) ? "failure" : "failed";
}

}  // namespace

std::string api_base_url(const config::Notification& entry, const PassEvent& event) {
  std::string base = entry.api_url;
  if (base.empty()) {
    auto parsed = parse_repository_url(event.repo);
    if (is_github(entry))
      base = !parsed || parsed->host == "github.com"
                 ? "https://api.github.com"
                 : fmt::format("{}://{}/api/v3", parsed->scheme, parsed->host);
    else
      base =
          parsed ? fmt::format("{}://{}/api/v4", parsed->scheme, parsed->host) : "https://gitlab.com/api/v4";
  }
  while (base.ends_with('/'))
    base.pop_back();
  return base;
}

std::string status_context(const config::Notification& entry, const PassEvent& event) {
  if (!entry.context.empty()) return entry.context;
  return event.set_name.empty() ? "opctl" : "opctl/" + event.set_name;
}

HttpRequest commit_status_request(const config::Notification& entry, const PassEvent& event,
                                  const std::string& token) {
  if (event.commit.empty()) throw NotificationError("no commit to mark: the source is not a git repository");
  if (event.commit.ends_with("-dirty"))
    throw NotificationError("no commit to mark: the work tree has uncommitted changes");
  std::string repository = repository_of(entry, event);
  HttpRequest request;
  model::Json body = {{"state", state_of(entry, event)}};
  if (is_github(entry)) {
    request.url =
        fmt::format("{}/repos/{}/statuses/{}", api_base_url(entry, event), repository, event.commit);
    request.headers = {"Authorization: Bearer " + token, "Accept: application/vnd.github+json",
                       "X-GitHub-Api-Version: 2022-11-28"};
    body["context"] = status_context(entry, event);
    body["description"] = truncated(summary_line(event), 140);
  } else {
    request.url = fmt::format("{}/projects/{}/statuses/{}", api_base_url(entry, event),
                              path_segment(repository), event.commit);
    request.headers = {"PRIVATE-TOKEN: " + token};
    body["name"] = status_context(entry, event);
    body["description"] = truncated(summary_line(event), 255);
  }
  if (!entry.target_url.empty()) body["target_url"] = entry.target_url;
  request.body = body.dump();
  return request;
}

}  // namespace opctl::notify
