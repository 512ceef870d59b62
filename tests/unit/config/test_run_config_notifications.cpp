// spec.notifications: every field read, credentials never inline, and the
// combinations each type needs checked with the file and line.
#include <catch2/catch.hpp>

#include "config/run_config.hpp"
#include "model/error.hpp"

using opctl::config::NotificationTrigger;
using opctl::config::NotificationType;
using opctl::config::parse_run_config;

namespace {

const std::string k_notifications_header =
    "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  notifications:\n";

}  // namespace

TEST_CASE("notification entries are read with every field and where they start", "[run_config][notify]") {
  // Given one entry of each type, we should keep every field, default the triggers and note each line.
  auto config = parse_run_config(k_notifications_header + R"(    - type: webhook
      name: ops
      url: https://hooks.example/opctl
      tokenEnv: OPCTL_WEBHOOK_TOKEN
      on: [always]
      timeout: 5s
      retries: 0
    - type: slack
      urlFile: /etc/opctl/slack-url
      channel: "#deploys"
    - type: github
      apiURL: https://github.example/api/v3
      repository: acme/ops
      tokenFile: /etc/opctl/github-token
      context: deploy/prod
      targetURL: https://dashboard.example/prod
      on: [failure, success]
    - type: gitlab
      project: group/sub/ops
      tokenEnv: GITLAB_TOKEN
)",
                                 "opctl.yaml");
  REQUIRE(config.notifications.size() == 4);
  const auto& webhook = config.notifications[0];
  CHECK(webhook.type == NotificationType::webhook);
  CHECK(webhook.name == "ops");
  CHECK(webhook.url == "https://hooks.example/opctl");
  CHECK(webhook.token_env == "OPCTL_WEBHOOK_TOKEN");
  CHECK(webhook.triggers == std::vector{NotificationTrigger::always});
  CHECK(webhook.timeout == std::chrono::seconds(5));
  CHECK(webhook.retries == 0);
  CHECK(webhook.line == 5);
  const auto& slack = config.notifications[1];
  CHECK(slack.url_file == "/etc/opctl/slack-url");
  CHECK(slack.channel == "#deploys");
  CHECK(slack.triggers == std::vector{NotificationTrigger::failure, NotificationTrigger::change});
  CHECK(slack.retries == 2);
  CHECK(slack.timeout == std::chrono::seconds(10));
  const auto& github = config.notifications[2];
  CHECK(github.api_url == "https://github.example/api/v3");
  CHECK(github.repository == "acme/ops");
  CHECK(github.token_file == "/etc/opctl/github-token");
  CHECK(github.context == "deploy/prod");
  CHECK(github.target_url == "https://dashboard.example/prod");
  CHECK(github.triggers == std::vector{NotificationTrigger::failure, NotificationTrigger::success});
  CHECK(config.notifications[3].repository == "group/sub/ops");
  CHECK(config.notifications[3].line == 22);
}

TEST_CASE("a token written into opctl.yaml is refused with its line", "[run_config][notify]") {
  // Given an inline token, we should refuse the file and say where the credential belongs instead.
  CHECK_THROWS_WITH(
      parse_run_config(k_notifications_header +
                           "    - type: github\n      repository: acme/ops\n      token: ghp_secret\n",
                       "opctl.yaml"),
      Catch::Contains(
          "opctl.yaml:7: spec.notifications[0].token: a credential is never written in opctl.yaml") &&
          Catch::Contains("tokenFile or tokenEnv"));
  // The message names where the token was, never the token itself.
  try {
    parse_run_config(k_notifications_header +
                         "    - type: webhook\n      url: https://x.example/\n      token: s3cret-value\n",
                     "opctl.yaml");
    FAIL("an inline token was accepted");
  } catch (const opctl::InvalidInputError& error) {
    CHECK(std::string(error.what()).find("s3cret-value") == std::string::npos);
  }
}

TEST_CASE("a Slack URL or a URL with a password inline is refused", "[run_config][notify]") {
  CHECK_THROWS_WITH(
      parse_run_config(
          k_notifications_header + "    - type: slack\n      url: https://hooks.slack.com/services/T/B/x\n",
          "opctl.yaml"),
      Catch::Contains("opctl.yaml:6: spec.notifications[0].url: a Slack webhook URL is a credential"));
  CHECK_THROWS_WITH(parse_run_config(k_notifications_header +
                                         "    - type: webhook\n      url: https://user:pw@hooks.example/\n",
                                     "opctl.yaml"),
                    Catch::Contains("spec.notifications[0].url: carries a credential"));
}

TEST_CASE("each type's required and foreign fields are checked", "[run_config][notify]") {
  auto refused = [](const std::string& entry, const std::string& message) {
    CHECK_THROWS_WITH(parse_run_config(k_notifications_header + entry, "opctl.yaml"),
                      Catch::Contains(message));
  };
  refused("    - type: teams\n      url: https://x.example/\n",
          "type: must be webhook, slack, github or gitlab");
  refused("    - url: https://x.example/\n", "type: must be webhook, slack, github or gitlab");
  refused("    - type: webhook\n", "needs exactly one of url, urlFile or urlEnv");
  refused("    - type: webhook\n      url: ftp://x.example/\n", "url: must be an http:// or https:// URL");
  refused("    - type: github\n      repository: acme/ops\n", "a commit status needs a token");
  refused("    - type: github\n      tokenEnv: T\n      url: https://x.example/\n", "not url");
  refused("    - type: github\n      tokenEnv: T\n      repository: acme\n", "must be owner/name");
  refused("    - type: slack\n      urlEnv: U\n      tokenEnv: T\n", "a Slack webhook takes no token");
  refused("    - type: webhook\n      urlEnv: U\n      tokenEnv: T\n      tokenFile: /t\n",
          "at most one of tokenFile or tokenEnv");
  refused("    - type: webhook\n      urlEnv: U\n      on: [sometimes]\n",
          "\"sometimes\" is not failure, change, success or always");
  refused("    - type: webhook\n      urlEnv: U\n      retries: 50\n", "retries: must be between 0 and 10");
  refused("    - type: webhook\n      urlEnv: U\n      secret: x\n", "unknown field \"secret\"");
  refused("    - type: webhook\n      urlEnv: U\n      signingKeyEnv: K\n      signingKeyFile: /k\n",
          "at most one of signingKeyFile or signingKeyEnv");
  refused("    - type: slack\n      urlEnv: U\n      signingKeyEnv: K\n",
          "signingKeyFile and signingKeyEnv are for webhook entries");
  refused("    - type: webhook\n      urlEnv: U\n      signingKey: s3cret\n",
          "spec.notifications[0].signingKey: a credential is never written in opctl.yaml");
}

TEST_CASE("a webhook's signing key is named by a file or a variable", "[run_config][notify]") {
  auto config =
      parse_run_config(k_notifications_header +
                           "    - type: webhook\n      urlEnv: U\n      signingKeyFile: /etc/opctl/hook-key\n"
                           "    - type: webhook\n      urlEnv: U\n      signingKeyEnv: HOOK_KEY\n",
                       "opctl.yaml");
  REQUIRE(config.notifications.size() == 2);
  CHECK(config.notifications[0].signing_key_file == "/etc/opctl/hook-key");
  CHECK(config.notifications[1].signing_key_env == "HOOK_KEY");
}
