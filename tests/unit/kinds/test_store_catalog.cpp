#include <catch2/catch.hpp>

#include "kinds/backup/store_catalog.hpp"
#include "model/error.hpp"

using namespace opctl::kinds;
using namespace opctl::kinds::backup;

namespace {

// What barman-cloud-backup-list --format json prints (barman-cli-cloud 3.4), trimmed to the fields opctl
// reads.
const char* k_listing = R"({"backups_list": [
  {"backup_id": "20261201T030000", "backup_name": "nightly-1", "status": "DONE",
   "begin_time": "Tue Dec  1 03:00:00 2026", "end_time": "Tue Dec  1 03:00:41 2026",
   "begin_wal": "000000010000000000000003", "end_wal": "000000010000000000000003",
   "begin_xlog": "0/3000028", "end_xlog": "0/3000138", "timeline": 1, "size": 31457280, "version": 150010},
  {"backup_id": "20261203T030000", "backup_name": "nightly-3", "status": "FAILED",
   "begin_time": "Thu Dec  3 03:00:00 2026", "end_time": null, "timeline": 1, "version": 150010},
  {"backup_id": "20261202T030000", "backup_name": "nightly-2", "status": "DONE",
   "begin_time": "Wed Dec  2 03:00:00 2026", "end_time": "Wed Dec  2 03:00:39 2026",
   "begin_wal": "000000010000000000000007", "end_wal": "000000010000000000000007",
   "begin_xlog": "0/7000028", "end_xlog": "0/7000100", "timeline": 1, "size": 31457281, "version": 150010},
  {"backup_id": "20261204T030000", "backup_name": "nightly-4", "status": "DONE",
   "begin_time": "Fri Dec  4 03:00:00 2026", "end_time": "Fri Dec  4 03:00:45 2026",
   "begin_wal": "00000002000000000000000B", "end_wal": "00000002000000000000000C",
   "begin_xlog": "0/B000028", "end_xlog": "0/C000060", "timeline": 2, "size": 41457280, "version": 150010},
  {"backup_id": "20261205T030000", "backup_name": "nightly-5", "status": "STARTED",
   "begin_time": "Sat Dec  5 03:00:00 2026", "timeline": 2, "version": 150010}]})";

TimePoint utc(const char* text) {
  return *parse_time(text);
}

}  // namespace

TEST_CASE("the store's list is read oldest first, times in UTC", "[kinds][backup][store]") {
  auto backups = parse_store_backups(k_listing);
  REQUIRE(backups.size() == 5);
  CHECK(backups[0].id == "20261201T030000");
  CHECK(backups[1].id == "20261202T030000");
  CHECK(backups[0].name == "nightly-1");
  CHECK(backups[0].end_time == utc("2026-12-01T03:00:41Z"));
  CHECK(backups[0].begin_wal == "000000010000000000000003");
  CHECK(backups[0].size_bytes == 31457280);
  CHECK(backups[2].status == "FAILED");
  CHECK_FALSE(backups[2].end_time);
  CHECK_THROWS_AS(parse_store_backups("ERROR: no such bucket"), opctl::ClusterError);
}

TEST_CASE("retention in the store: keep and maxAge count completed backups; failed ones go once superseded",
          "[kinds][backup][store]") {
  auto backups = parse_store_backups(k_listing);
  TimePoint now = utc("2026-12-05T04:00:00Z");
  // keep 2: the two newest DONE stay (12-04, 12-02); 12-01 goes, and the failed 12-03 is older than 12-04's.
  CHECK(backups_to_delete(backups, 2, std::nullopt, now) ==
        std::vector<std::string>{"20261201T030000", "20261203T030000"});
  // maxAge 3d: 12-01 and 12-02 ended before 12-02T04:00.
  CHECK(backups_to_delete(backups, std::nullopt, std::chrono::hours(72), now) ==
        std::vector<std::string>{"20261201T030000", "20261202T030000", "20261203T030000"});
  // No retention: only the superseded failure.
  CHECK(backups_to_delete(backups, std::nullopt, std::nullopt, now) ==
        std::vector<std::string>{"20261203T030000"});
  // The running one is never deleted, whatever the rules.
  for (const auto& id : backups_to_delete(backups, 1, std::chrono::seconds(1), now))
    CHECK(id != "20261205T030000");
}

TEST_CASE("the termination message: the backup taken, and what is left, newest first",
          "[kinds][backup][store]") {
  auto backups = parse_store_backups(k_listing);
  auto message = store_termination_message(backups[3], backups);
  CHECK(message["artifact"]["name"] == "20261204T030000");
  CHECK(message["artifact"]["backupName"] == "nightly-4");
  CHECK(message["artifact"]["method"] == "barman-cloud");
  CHECK(message["artifact"]["pgMajor"] == 15);
  CHECK(message["artifact"]["timeline"] == 2);
  CHECK(message["artifact"]["startWalFile"] == "00000002000000000000000B");
  CHECK(message["artifact"]["endTime"] == "2026-12-04T03:00:45Z");
  CHECK(message["artifact"]["sizeBytes"] == 41457280);
  // Barman Cloud's own uploads record no size: none is reported rather than 0.
  auto unsized = backups[3];
  unsized.size_bytes = 0;
  CHECK_FALSE(store_termination_message(unsized, {})["artifact"].contains("sizeBytes"));
  CHECK(message["artifactCount"] == 3);
  REQUIRE(message["artifacts"].size() == 3);
  CHECK(message["artifacts"][0]["name"] == "20261204T030000");
  CHECK(message["artifacts"][2]["name"] == "20261201T030000");
  CHECK(message.dump().size() < 4096);
}

TEST_CASE("a restore starts from the newest completed backup, or the newest that ended before the target",
          "[kinds][backup][store]") {
  auto backups = parse_store_backups(k_listing);
  CHECK(pick_backup(backups, std::nullopt, "")->id == "20261204T030000");
  CHECK(pick_backup(backups, utc("2026-12-03T12:00:00Z"), "")->id == "20261202T030000");
  // A backup that ended after the target cannot reach it, even one that began before it.
  CHECK(pick_backup(backups, utc("2026-12-02T03:00:20Z"), "")->id == "20261201T030000");
  CHECK_FALSE(pick_backup(backups, utc("2026-11-30T00:00:00Z"), ""));
  CHECK(pick_backup(backups, std::nullopt, "0/7000100")->id == "20261202T030000");
  CHECK(pick_backup(backups, std::nullopt, "0/70000FF")->id == "20261201T030000");
  CHECK_FALSE(pick_backup(backups, std::nullopt, "not-an-lsn"));
}
