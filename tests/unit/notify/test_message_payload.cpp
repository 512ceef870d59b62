// The webhook's and Slack's JSON, built from a pass.
#include <catch2/catch.hpp>

#include "notify/message_payload.hpp"
#include "notify/notify_fixtures.hpp"

using opctl::config::NotificationType;
using opctl::notify::slack_payload;
using opctl::notify::summary_line;
using opctl::notify::webhook_payload;
using opctl::testing::changed_pass;
using opctl::testing::entry_of;
using opctl::testing::failed_pass;

TEST_CASE("the summary names the set, the result, the short commit and the counts or the reason",
          "[notify]") {
  CHECK(summary_line(changed_pass()) ==
        "set shop succeeded at 0123456: 2 created, 1 configured, 0 pruned, 7 unchanged");
  CHECK(summary_line(failed_pass()) == "set shop failed at 0123456: 1 object failed");
  auto unnamed = changed_pass();
  unnamed.set_name.clear();
  unnamed.commit.clear();
  unnamed.result = "timed-out";
  unnamed.message = "waited 5m for https://user:pw@git.example/x";
  CHECK(summary_line(unnamed) == "the unnamed set timed out: waited 5m for https://git.example/x");
}

TEST_CASE("the webhook payload carries the result, revision, counts and failures", "[notify]") {
  // Given a failed pass, we should send severity error, the revision and the failed object.
  auto payload = webhook_payload(entry_of(NotificationType::webhook), failed_pass());
  CHECK(payload["set"] == "shop");
  CHECK(payload["result"] == "failed");
  CHECK(payload["severity"] == "error");
  CHECK(payload["changed"] == false);
  CHECK(payload["revision"]["commit"] == "0123456789abcdef0123456789abcdef01234567");
  CHECK(payload["revision"]["repo"] == "https://github.com/acme/ops.git");
  CHECK(payload["revision"]["path"] == "prod");
  CHECK(payload["counts"]["failed"] == 1);
  CHECK(payload["failures"][0]["object"] == "ConfigMap shop/settings");
  CHECK(payload["startTime"] == "2026-12-04T22:00:00Z");
  CHECK(payload["durationSeconds"] == 1.5);
  CHECK_FALSE(payload.contains("targetURL"));
  auto changed = webhook_payload(entry_of(NotificationType::webhook), changed_pass());
  CHECK(changed["severity"] == "info");
  CHECK(changed["changed"] == true);
  CHECK(changed["counts"]["created"] == 2);
}

TEST_CASE("the Slack payload escapes markup, colours by result and names the channel", "[notify]") {
  auto entry = entry_of(NotificationType::slack);
  entry.channel = "#deploys";
  entry.target_url = "https://ci.example/job/1";
  auto payload = slack_payload(entry, failed_pass());
  CHECK(payload["channel"] == "#deploys");
  CHECK(payload["username"] == "opctl");
  CHECK(payload["text"] ==
        "opctl: set shop failed at 0123456: 1 object failed (<https://ci.example/job/1|details>)");
  const auto& attachment = payload["attachments"][0];
  CHECK(attachment["color"] == "danger");
  std::string failed;
  for (const auto& field : attachment["fields"])
    if (field["title"] == "Failed") failed = field["value"];
  CHECK(failed ==
        "ConfigMap shop/settings: admission webhook \"deny\" denied &lt;the&gt; request &amp; more\n");
  CHECK(slack_payload(entry_of(NotificationType::slack), changed_pass())["attachments"][0]["color"] ==
        "good");
  CHECK_FALSE(slack_payload(entry_of(NotificationType::slack), changed_pass()).contains("channel"));
}
