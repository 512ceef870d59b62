#include "notify/message_payload.hpp"

#include <fmt/format.h>

#include <ctime>

#include "model/redaction.hpp"

namespace opctl::notify {
namespace {

std::string short_commit(const std::string& commit) {
  return commit.substr(0, 7) + (commit.ends_with("-dirty") ? "-dirty" : "");
}

std::string rfc3339(std::chrono::system_clock::time_point time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string counts_text(const PassEvent& event) {
  std::string text = fmt::format("{} created, {} configured, {} pruned, {} unchanged", event.created,
                                 event.configured, event.pruned, event.unchanged);
  if (event.failed > 0) text += fmt::format(", {} failed", event.failed);
  return text;
}

// Slack reads &, < and > as markup: its own escapes keep them text.
std::string slack_escaped(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '&')
      escaped += "&amp;";
    else if (c == '<')
      escaped += "&lt;";
    else if (c == '>')
      escaped += "&gt;";
    else
      escaped += c;
  }
  return escaped;
}

// Messages leave the machine: URL credentials in an error text do not.
std::string publishable(const std::string& text) {
  return model::redact_credentials(text);
}

}  // namespace

const char* severity_of(const PassEvent& event) {
  return event.succeeded() ? "info" : "error";
}

std::string summary_line(const PassEvent& event) {
  std::string set = event.set_name.empty() ? "the unnamed set" : "set " + event.set_name;
  std::string at = event.commit.empty() ? "" : " at " + short_commit(event.commit);
  std::string result = event.result == "timed-out" ? "timed out" : event.result;
  if (event.succeeded()) return fmt::format("{} {}{}: {}", set, result, at, counts_text(event));
  std::string why = event.message.empty() ? counts_text(event) : publishable(event.message);
  return fmt::format("{} {}{}: {}", set, result, at, why);
}

model::Json webhook_payload(const config::Notification& entry, const PassEvent& event) {
  model::Json failures = model::Json::array();
  for (const auto& failure : event.failures)
    failures.push_back({{"object", failure.object}, {"message", publishable(failure.message)}});
  model::Json payload = {
      {"set", event.set_name},
      {"result", event.result},
      {"severity", severity_of(event)},
      {"changed", event.changed()},
      {"summary", summary_line(event)},
      {"message", publishable(event.message)},
      {"revision",
       {{"repo", event.repo}, {"ref", event.ref}, {"commit", event.commit}, {"path", event.path}}},
      {"counts",
       {{"created", event.created},
        {"configured", event.configured},
        {"pruned", event.pruned},
        {"unchanged", event.unchanged},
        {"failed", event.failed}}},
      {"failures", failures},
      {"startTime", rfc3339(event.started)},
      {"durationSeconds", static_cast<double>(event.duration.count()) / 1000.0}};
  if (!entry.target_url.empty()) payload["targetURL"] = entry.target_url;
  return payload;
}

model::Json slack_payload(const config::Notification& entry, const PassEvent& event) {
  std::string text = "opctl: " + slack_escaped(summary_line(event));
  if (!entry.target_url.empty()) text += fmt::format(" (<{}|details>)", entry.target_url);
  model::Json fields = model::Json::array();
  fields.push_back({{"title", "Result"}, {"value", event.result}, {"short", true}});
  if (!event.commit.empty())
    fields.push_back({{"title", "Commit"}, {"value", short_commit(event.commit)}, {"short", true}});
  if (!event.repo.empty() || !event.path.empty())
    fields.push_back(
        {{"title", "Source"},
         {"value", slack_escaped(event.repo.empty() ? event.path : event.repo + ":" + event.path)},
         {"short", false}});
  fields.push_back({{"title", "Changes"}, {"value", counts_text(event)}, {"short", false}});
  std::string failed;
  for (const auto& failure : event.failures)
    failed += slack_escaped(failure.object + ": " + publishable(failure.message)) + "\n";
  if (!failed.empty()) fields.push_back({{"title", "Failed"}, {"value", failed}, {"short", false}});
  model::Json payload = {
      {"username", "opctl"},
      {"text", text},
      {"attachments", model::Json::array({{{"color", event.succeeded() ? "good" : "danger"},
                                           {"fallback", slack_escaped(summary_line(event))},
                                           {"fields", fields}}})}};
  if (!entry.channel.empty()) payload["channel"] = entry.channel;
  return payload;
}

}  // namespace opctl::notify
