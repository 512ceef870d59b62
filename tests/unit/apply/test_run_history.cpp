// Every pass adds an entry to the set's history: newest first, bounded in
// entries and bytes, with the origin's fields; an older parent's last-run
// record becomes the first entry.
#include <catch2/catch.hpp>

#include "apply/run_history.hpp"

using namespace opctl::apply;
using opctl::model::Json;

namespace {

PassReport report_with(PassResult result, std::string message = "") {
  PassReport report;
  report.result = result;
  report.message = std::move(message);
  report.started = std::chrono::system_clock::time_point(std::chrono::seconds(1796342400));  // 2026-12-04
  ObjectOutcome created;
  created.action = Action::created;
  report.outcomes = {created, created};
  ObjectOutcome unchanged;
  unchanged.action = Action::unchanged;
  report.outcomes.push_back(unchanged);
  return report;
}

RunOrigin origin_at(const std::string& commit) {
  RunOrigin origin;
  origin.revision = "file:///repo.git@" + commit + ":manifests";
  origin.repo = "file:///repo.git";
  origin.ref = "main";
  origin.commit = commit;
  origin.path = "manifests";
  origin.subject = "third";
  return origin;
}

}  // namespace

TEST_CASE("a history entry has the origin, result, counts and duration", "[run_history]") {
  // Given a pass that created two objects, we should record what `opctl history -o json` shows.
  RunOrigin origin = origin_at("c0ffee0000000000000000000000000000000000");
  origin.signer = "ann@example.com (ED25519 SHA256:abc)";
  Json entry = history_entry(report_with(PassResult::succeeded), origin, std::chrono::milliseconds(2500));
  CHECK(entry["started"] == "2026-12-04T00:00:00Z");
  CHECK(entry["durationSeconds"] == 2.5);
  CHECK(entry["result"] == "succeeded");
  CHECK(entry["created"] == 2);
  CHECK(entry["unchanged"] == 1);
  CHECK(entry["configured"] == 0);
  CHECK(entry["pruned"] == 0);
  CHECK(entry["failed"] == 0);
  CHECK(entry["commit"] == "c0ffee0000000000000000000000000000000000");
  CHECK(entry["ref"] == "main");
  CHECK(entry["signer"] == "ann@example.com (ED25519 SHA256:abc)");
  CHECK_FALSE(entry.contains("pinned"));
  CHECK_FALSE(entry.contains("rollback"));
  CHECK_FALSE(entry.contains("message"));
}

TEST_CASE("a rollback's entry says so, and a long failure message is cut", "[run_history]") {
  RunOrigin origin = origin_at("c0ffee0000000000000000000000000000000000");
  origin.pinned = origin.commit;
  origin.rollback = true;
  Json entry = history_entry(report_with(PassResult::failed, std::string(1000, 'x')), origin,
                             std::chrono::milliseconds(10));
  CHECK(entry["rollback"] == true);
  CHECK(entry["pinned"] == origin.commit);
  CHECK(entry["message"].get<std::string>().size() == k_history_message_chars + 3);
}

TEST_CASE("entries are added newest first with growing ids, and only the last 20 are kept", "[run_history]") {
  Json history = Json::array();
  for (int pass = 1; pass <= 25; ++pass) {
    Json entry = history_entry(report_with(PassResult::succeeded), origin_at(std::to_string(pass)),
                               std::chrono::milliseconds(1));
    history = Json::parse(append_history(history, entry));
  }
  REQUIRE(history.size() == k_history_entries);
  CHECK(history[0]["id"] == 25);
  CHECK(history[0]["commit"] == "25");
  CHECK(history[19]["id"] == 6);
}

TEST_CASE("the history stays within its byte limit by dropping the oldest entries", "[run_history]") {
  // Given entries of about 4 KiB each (long subjects), we should keep fewer than 20, the newest.
  Json history = Json::array();
  for (int pass = 1; pass <= 12; ++pass) {
    RunOrigin origin = origin_at(std::to_string(pass));
    origin.subject = std::string(4000, 's');
    history =
        Json::parse(append_history(history, history_entry(report_with(PassResult::succeeded), origin, {})));
  }
  CHECK(history.dump().size() <= k_history_bytes);
  CHECK(history.size() < 12);
  CHECK(history[0]["id"] == 12);
}

TEST_CASE("a parent written before opctl kept a history starts it with its last run", "[run_history]") {
  std::string last_run =
      R"({"revision":"r@abc:.","time":"2026-12-01T10:00:00Z","result":"failed","created":1,"configured":0,)"
      R"("unchanged":3,"pruned":0,"failed":1,"message":"boom"})";
  Json history = parse_history("", last_run);
  REQUIRE(history.size() == 1);
  CHECK(history[0]["id"] == 1);
  CHECK(history[0]["started"] == "2026-12-01T10:00:00Z");
  CHECK(history[0]["result"] == "failed");
  CHECK(history[0]["unchanged"] == 3);
  CHECK_FALSE(history[0].contains("time"));
  Json next = Json::parse(
      append_history(history, history_entry(report_with(PassResult::succeeded), origin_at("def"), {})));
  CHECK(next[0]["id"] == 2);
  CHECK(next[1]["revision"] == "r@abc:.");
}

TEST_CASE("no record, or unreadable text, is an empty history", "[run_history]") {
  CHECK(parse_history("", "").empty());
  CHECK(parse_history("not json", "").empty());
  CHECK(parse_history(R"({"an":"object"})", "").empty());
  CHECK(parse_history("[1, {\"id\": 4}]", "").size() == 1);
  CHECK(parse_history("", "garbage").empty());
}
