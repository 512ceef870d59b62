#include "apply/run_history.hpp"

#include "apply/lease_lock.hpp"
#include "apply/pass_records.hpp"

namespace opctl::apply {

using model::Json;

namespace {

void put_if_set(Json& entry, const char* field, const std::string& value) {
  if (!value.empty()) entry[field] = value;
}

// An entry from the last-run record of an older opctl: the same fields, bar the id and duration.
Json entry_of_last_run(const Json& last_run) {
  Json entry = last_run;
  entry["id"] = 1;
  if (entry.contains("time") && !entry.contains("started")) entry["started"] = entry["time"];
  entry.erase("time");
  return entry;
}

}  // namespace

Json history_entry(const PassReport& report, const RunOrigin& origin, std::chrono::milliseconds duration) {
  Json entry = run_counts(report);
  entry["started"] = format_micro_time(report.started).substr(0, 19) + "Z";
  entry["durationSeconds"] = static_cast<double>(duration.count()) / 1000.0;
  put_if_set(entry, "revision", origin.revision);
  put_if_set(entry, "repo", origin.repo);
  put_if_set(entry, "ref", origin.ref);
  put_if_set(entry, "commit", origin.commit);
  put_if_set(entry, "path", origin.path);
  put_if_set(entry, "subject", origin.subject);
  put_if_set(entry, "signer", origin.signer);
  put_if_set(entry, "pinned", origin.pinned);
  if (origin.rollback) entry["rollback"] = true;
  if (!report.message.empty()) {
    std::string message = report.message;
    if (message.size() > k_history_message_chars)
      message = message.substr(0, k_history_message_chars) + "...";
    entry["message"] = message;
  }
  return entry;
}

Json parse_history(const std::string& history, const std::string& last_run) {
  if (!history.empty()) {
    Json parsed = Json::parse(history, nullptr, false);
    Json entries = Json::array();
    if (parsed.is_array())
      for (auto& entry : parsed)
        if (entry.is_object()) entries.push_back(std::move(entry));
    return entries;
  }
  Json old = last_run.empty() ? Json() : Json::parse(last_run, nullptr, false);
  if (!old.is_object()) return Json::array();
  return Json::array({entry_of_last_run(old)});
}

std::string append_history(const Json& history, Json entry) {
  long newest = 0;
  for (const auto& old : history)
    if (old.contains("id") && old["id"].is_number_integer()) newest = std::max(newest, old["id"].get<long>());
  entry["id"] = newest + 1;
  Json bounded = Json::array({std::move(entry)});
  for (const auto& old : history) {
    if (bounded.size() >= k_history_entries) break;
    bounded.push_back(old);
  }
  std::string text = bounded.dump();
  while (text.size() > k_history_bytes && bounded.size() > 1) {
    bounded.erase(bounded.size() - 1);
    text = bounded.dump();
  }
  return text;
}

}  // namespace opctl::apply
