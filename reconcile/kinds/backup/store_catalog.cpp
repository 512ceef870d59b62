#include "kinds/backup/store_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "model/error.hpp"

namespace opctl::kinds::backup {
namespace {

using model::Json;

// barman writes times with ctime(): "Sat Dec  5 17:41:35 2026", in the
// server's zone, which is UTC in the instance image.
std::optional<TimePoint> parse_ctime(const std::string& text) {
  std::istringstream in(text);
  std::string weekday, month, clock;
  int day = 0, year = 0;
  if (!(in >> weekday >> month >> day >> clock >> year)) return std::nullopt;
  static constexpr std::array<const char*, 12> months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  auto found = std::find(months.begin(), months.end(), month);
  int hour = 0, minute = 0, second = 0;
  if (found == months.end() || std::sscanf(clock.c_str(), "%d:%d:%d", &hour, &minute, &second) != 3)
    return std::nullopt;
  std::tm parts{};
  parts.tm_year = year - 1900;
  parts.tm_mon = static_cast<int>(found - months.begin());
  parts.tm_mday = day;
  parts.tm_hour = hour;
  parts.tm_min = minute;
  parts.tm_sec = second;
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

std::string text(const Json& object, const char* name) {
  auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

long long number(const Json& object, const char* name) {
  auto found = object.find(name);
  return found != object.end() && found->is_number_integer() ? found->get<long long>() : 0;
}

Json artifact_of(const StoreBackup& backup) {
  Json out = {{"name", backup.id},
              {"method", "barman-cloud"},
              {"pgMajor", backup.server_version / 10000},
              {"timeline", backup.timeline},
              {"startLsn", backup.begin_lsn},
              {"endLsn", backup.end_lsn},
              {"startWalFile", backup.begin_wal},
              {"endWalFile", backup.end_wal}};
  // Barman Cloud records no size for a backup it uploaded: none is better than a 0 that reads as empty.
  if (backup.size_bytes > 0) out["sizeBytes"] = backup.size_bytes;
  if (!backup.name.empty()) out["backupName"] = backup.name;
  if (backup.begin_time) out["startTime"] = format_time(*backup.begin_time);
  if (backup.end_time) out["endTime"] = format_time(*backup.end_time);
  return out;
}

}  // namespace

std::vector<StoreBackup> parse_store_backups(const std::string& json) {
  Json parsed = Json::parse(json, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("backups_list") || !parsed["backups_list"].is_array())
    throw ClusterError("barman-cloud-backup-list did not print a backups_list: " + json.substr(0, 200));
  std::vector<StoreBackup> backups;
  for (const auto& item : parsed["backups_list"]) {
    if (!item.is_object()) continue;
    StoreBackup backup;
    backup.id = text(item, "backup_id");
    backup.name = text(item, "backup_name");
    backup.status = text(item, "status");
    backup.begin_time = parse_ctime(text(item, "begin_time"));
    backup.end_time = parse_ctime(text(item, "end_time"));
    backup.begin_wal = text(item, "begin_wal");
    backup.end_wal = text(item, "end_wal");
    backup.begin_lsn = text(item, "begin_xlog");
    backup.end_lsn = text(item, "end_xlog");
    backup.timeline = number(item, "timeline");
    backup.size_bytes = number(item, "size");
    backup.server_version = number(item, "version");
    if (!backup.id.empty()) backups.push_back(std::move(backup));
  }
  // Backup ids are UTC timestamps: their order is the order the backups started in.
  std::sort(backups.begin(), backups.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return backups;
}

std::vector<std::string> backups_to_delete(const std::vector<StoreBackup>& backups, std::optional<int> keep,
                                           std::optional<std::chrono::seconds> max_age, TimePoint now) {
  std::vector<std::string> doomed;
  auto too_old = [&](const StoreBackup& backup) {
    TimePoint when = backup.end_time.value_or(backup.begin_time.value_or(now));
    return max_age && when < now - *max_age;
  };
  int kept = 0;
  std::string newest_done;
  for (auto it = backups.rbegin(); it != backups.rend(); ++it) {  // newest first
    if (it->status == "DONE") {
      if (newest_done.empty()) newest_done = it->id;
      bool beyond_keep = keep && kept >= *keep;
      if (beyond_keep || too_old(*it))
        doomed.push_back(it->id);
      else
        ++kept;
    } else if (it->status == "FAILED" && ((!newest_done.empty() && it->id < newest_done) || too_old(*it))) {
      doomed.push_back(it->id);
    }
  }
  std::reverse(doomed.begin(), doomed.end());
  return doomed;
}

namespace {

// "16/B374D848" -> its 64-bit position; nullopt when it is not an LSN.
std::optional<unsigned long long> lsn_value(const std::string& text) {
  auto slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return std::nullopt;
  try {
    std::size_t used_high = 0, used_low = 0;
    unsigned long long high = std::stoull(text.substr(0, slash), &used_high, 16);
    unsigned long long low = std::stoull(text.substr(slash + 1), &used_low, 16);
    if (used_high != slash || used_low != text.size() - slash - 1) return std::nullopt;
    return (high << 32) + low;
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<StoreBackup> pick_backup(const std::vector<StoreBackup>& backups,
                                       std::optional<TimePoint> target_time, const std::string& target_lsn) {
  std::optional<unsigned long long> target_position = lsn_value(target_lsn);
  for (auto it = backups.rbegin(); it != backups.rend(); ++it) {
    if (it->status != "DONE") continue;
    if (target_time && (!it->end_time || *it->end_time > *target_time)) continue;
    if (!target_lsn.empty()) {
      auto ended = lsn_value(it->end_lsn);
      if (!ended || !target_position || *ended > *target_position) continue;
    }
    return *it;
  }
  return std::nullopt;
}

Json store_termination_message(const StoreBackup& taken, const std::vector<StoreBackup>& left) {
  Json listed = Json::array();
  std::size_t size = 0, count = 0;
  for (auto it = left.rbegin(); it != left.rend(); ++it) {
    if (it->status != "DONE") continue;
    ++count;
    Json entry = {{"name", it->id}, {"method", "barman-cloud"}, {"pgMajor", it->server_version / 10000}};
    if (it->size_bytes > 0) entry["sizeBytes"] = it->size_bytes;
    if (it->end_time) entry["endTime"] = format_time(*it->end_time);
    std::string entry_text = entry.dump();
    // Kubernetes keeps 4096 bytes of a termination message; the artifact itself takes about 500.
    if (size + entry_text.size() < 3200) {
      size += entry_text.size() + 1;
      listed.push_back(std::move(entry));
    }
  }
  return {{"artifact", artifact_of(taken)}, {"artifacts", std::move(listed)}, {"artifactCount", count}};
}

}  // namespace opctl::kinds::backup
