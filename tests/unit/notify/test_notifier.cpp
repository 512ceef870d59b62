// The notifier: which entries a pass triggers, credentials from files and the
// environment, retries, and warnings that never carry a credential.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>

#include "notify/notifier.hpp"
#include "notify/notify_fixtures.hpp"
#include "notify/webhook_signature.hpp"
#include "support/fake_clock.hpp"

using opctl::config::NotificationTrigger;
using opctl::config::NotificationType;
using NotifyRequest = opctl::notify::HttpRequest;
using NotifyResponse = opctl::notify::HttpResponse;
using opctl::testing::changed_pass;
using opctl::testing::entry_of;
using opctl::testing::failed_pass;

namespace {

// Answers each POST with the next of `answers` (the last one repeated), and keeps what it was sent.
class ScriptedPoster : public opctl::notify::HttpPoster {
 public:
  explicit ScriptedPoster(std::vector<NotifyResponse> answers) : answers_(std::move(answers)) {}
  NotifyResponse post(const NotifyRequest& request, std::chrono::milliseconds) override {
    sent.push_back(request);
    return answers_[std::min(sent.size(), answers_.size()) - 1];
  }
  std::vector<NotifyRequest> sent;

 private:
  std::vector<NotifyResponse> answers_;
};

struct Harness {
  explicit Harness(std::vector<NotifyResponse> answers) : poster(std::move(answers)) {
    options.poster = &poster;
    options.clock = &clock;
    options.config_file = "opctl.yaml";
    options.environment = [this](const std::string& name) -> std::optional<std::string> {
      auto found = environment.find(name);
      return found == environment.end() ? std::nullopt : std::optional<std::string>(found->second);
    };
    options.on_warning = [this](const std::string& line) { warnings.push_back(line); };
  }
  ScriptedPoster poster;
  opctl::testing::FakeClock clock;
  std::map<std::string, std::string> environment;
  std::vector<std::string> warnings;
  opctl::notify::NotifierOptions options;
};

opctl::config::Notification webhook(std::vector<NotificationTrigger> triggers) {
  auto entry = entry_of(NotificationType::webhook);
  entry.url = "http://127.0.0.1:1/hook";
  entry.triggers = std::move(triggers);
  return entry;
}

}  // namespace

TEST_CASE("triggers: failure, change, success and always", "[notify]") {
  using opctl::notify::wants;
  auto in_sync = changed_pass();
  in_sync.created = in_sync.configured = 0;
  CHECK(wants(webhook({NotificationTrigger::failure}), failed_pass()));
  CHECK_FALSE(wants(webhook({NotificationTrigger::failure}), changed_pass()));
  CHECK(wants(webhook({NotificationTrigger::change}), changed_pass()));
  CHECK_FALSE(wants(webhook({NotificationTrigger::change}), in_sync));
  CHECK(wants(webhook({NotificationTrigger::success}), in_sync));
  CHECK_FALSE(wants(webhook({NotificationTrigger::success}), failed_pass()));
  CHECK(wants(webhook({NotificationTrigger::always}), in_sync));
  CHECK_FALSE(wants(webhook({NotificationTrigger::failure, NotificationTrigger::change}), in_sync));
}

TEST_CASE("a server error is retried with growing waits, then a warning without the token", "[notify]") {
  // Given a webhook that answers 503 and echoes the token, we should try 1 + retries times and hide the
  // token.
  Harness harness({{503, "", "busy, token s3cret"}});
  harness.environment["HOOK_TOKEN"] = "s3cret";
  auto entry = webhook({NotificationTrigger::always});
  entry.token_env = "HOOK_TOKEN";
  opctl::notify::send_notifications({entry}, changed_pass(), harness.options);
  REQUIRE(harness.poster.sent.size() == 3);
  CHECK(harness.poster.sent[0].headers == std::vector<std::string>{"Authorization: Bearer s3cret"});
  CHECK(harness.clock.slept() == std::chrono::milliseconds(3000));
  REQUIRE(harness.warnings.size() == 1);
  CHECK(harness.warnings[0] ==
        "the webhook notification (opctl.yaml:12) was not sent (3 attempts): HTTP 503: busy, token ***");
}

TEST_CASE("a client error is not retried; a success after a network error is quiet", "[notify]") {
  Harness refused({{404, "", "Not Found"}});
  opctl::notify::send_notifications({webhook({NotificationTrigger::always})}, changed_pass(),
                                    refused.options);
  CHECK(refused.poster.sent.size() == 1);
  CHECK(
      refused.warnings ==
      std::vector<std::string>{"the webhook notification (opctl.yaml:12) was not sent: HTTP 404: Not Found"});
  Harness flaky({{0, "Couldn't connect to server", ""}, {204, "", ""}});
  opctl::notify::send_notifications({webhook({NotificationTrigger::always})}, changed_pass(), flaky.options);
  CHECK(flaky.poster.sent.size() == 2);
  CHECK(flaky.warnings.empty());
}

TEST_CASE("a Slack URL and a token are read from files and the environment, never shown", "[notify]") {
  // Given the URL in a file (with the newline kubectl leaves) and a missing variable, we should send to the
  // URL read and warn about the variable by name.
  std::string url_file = "/tmp/opctl-test-notifier-url";
  std::ofstream(url_file) << "http://127.0.0.1:1/services/T/B/secretpart\n";
  Harness harness({{500, "", "echo http://127.0.0.1:1/services/T/B/secretpart"}});
  auto slack = entry_of(NotificationType::slack);
  slack.url_file = url_file;
  slack.retries = 0;
  auto github = entry_of(NotificationType::github);
  github.token_env = "GITHUB_TOKEN";
  github.name = "status";
  opctl::notify::send_notifications({slack, github}, failed_pass(), harness.options);
  std::remove(url_file.c_str());
  REQUIRE(harness.poster.sent.size() == 1);
  CHECK(harness.poster.sent[0].url == "http://127.0.0.1:1/services/T/B/secretpart");
  REQUIRE(harness.warnings.size() == 2);
  CHECK(harness.warnings[0] == "the slack notification (opctl.yaml:12) was not sent: HTTP 500: echo ***");
  CHECK(harness.warnings[1] ==
        "notification status (opctl.yaml:12) was not sent: tokenEnv GITHUB_TOKEN is not set");
}

TEST_CASE("a webhook body is signed with HMAC-SHA256 under the key", "[notify]") {
  // RFC 4231, test case 2: the reference vector, so the signature is HMAC-SHA256 and nothing else.
  CHECK(opctl::notify::webhook_signature("Jefe", "what do ya want for nothing?") ==
        "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");

  // Given a key in the environment, the request carries the signature of its exact body and never the key.
  Harness harness({{204, "", ""}});
  harness.environment["HOOK_KEY"] = "k3y-s3cret";
  auto signed_hook = webhook({NotificationTrigger::always});
  signed_hook.signing_key_env = "HOOK_KEY";
  opctl::notify::send_notifications({signed_hook}, changed_pass(), harness.options);
  REQUIRE(harness.poster.sent.size() == 1);
  const auto& request = harness.poster.sent[0];
  std::string expected =
      "X-Opctl-Signature-256: " + opctl::notify::webhook_signature("k3y-s3cret", request.body);
  CHECK(std::count(request.headers.begin(), request.headers.end(), expected) == 1);
  for (const auto& header : request.headers)
    CHECK(header.find("k3y-s3cret") == std::string::npos);

  // A key that is not there: the notification is not sent unsigned, a warning names the variable.
  Harness missing({{204, "", ""}});
  opctl::notify::send_notifications({signed_hook}, changed_pass(), missing.options);
  CHECK(missing.poster.sent.empty());
  REQUIRE(missing.warnings.size() == 1);
  CHECK(missing.warnings[0].find("signingKeyEnv HOOK_KEY is not set") != std::string::npos);
}

TEST_CASE("a pass no entry wants sends nothing", "[notify]") {
  Harness harness({{200, "", ""}});
  opctl::notify::send_notifications({webhook({NotificationTrigger::failure})}, changed_pass(),
                                    harness.options);
  CHECK(harness.poster.sent.empty());
  CHECK(harness.warnings.empty());
}
