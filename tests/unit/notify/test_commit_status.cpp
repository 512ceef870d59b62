// GitHub's and GitLab's commit status requests: path, headers and body.
#include <catch2/catch.hpp>

#include "model/object.hpp"
#include "notify/commit_status.hpp"
#include "notify/notification_error.hpp"
#include "notify/notify_fixtures.hpp"

using opctl::config::NotificationType;
using opctl::notify::api_base_url;
using opctl::notify::commit_status_request;
using opctl::testing::changed_pass;
using opctl::testing::entry_of;
using opctl::testing::failed_pass;

TEST_CASE("a GitHub status goes to /repos/{owner}/{repo}/statuses/{sha} with a bearer token", "[notify]") {
  // Given a source on github.com and no apiURL, we should derive the public API and the repository.
  auto request = commit_status_request(entry_of(NotificationType::github), changed_pass(), "ghp_token");
  CHECK(request.url ==
        "https://api.github.com/repos/acme/ops/statuses/0123456789abcdef0123456789abcdef01234567");
  CHECK(request.headers[0] == "Authorization: Bearer ghp_token");
  auto body = opctl::model::Json::parse(request.body);
  CHECK(body["state"] == "success");
  CHECK(body["context"] == "opctl/shop");
  CHECK(body["description"] ==
        "set shop succeeded at 0123456: 2 created, 1 configured, 0 pruned, 7 unchanged");
  CHECK_FALSE(body.contains("target_url"));
  auto failed = opctl::model::Json::parse(
      commit_status_request(entry_of(NotificationType::github), failed_pass(), "t").body);
  CHECK(failed["state"] == "failure");
}

TEST_CASE("a GitHub Enterprise host and apiURL are honoured; the description is at most 140 bytes",
          "[notify]") {
  auto event = failed_pass();
  event.repo = "git@github.example:acme/ops.git";
  event.message = std::string(200, 'x');
  auto entry = entry_of(NotificationType::github);
  CHECK(api_base_url(entry, event) == "https://github.example/api/v3");
  entry.api_url = "http://127.0.0.1:9/api/";
  entry.context = "deploy/prod";
  entry.target_url = "https://dash.example";
  auto request = commit_status_request(entry, event, "t");
  CHECK(request.url.starts_with("http://127.0.0.1:9/api/repos/acme/ops/statuses/"));
  auto body = opctl::model::Json::parse(request.body);
  CHECK(body["description"].get<std::string>().size() == 140);
  CHECK(body["context"] == "deploy/prod");
  CHECK(body["target_url"] == "https://dash.example");
}

TEST_CASE("a GitLab status goes to /projects/{encoded path}/statuses/{sha} with PRIVATE-TOKEN", "[notify]") {
  auto event = failed_pass();
  event.repo = "https://gitlab.example/group/sub/ops.git";
  auto request = commit_status_request(entry_of(NotificationType::gitlab), event, "glpat");
  CHECK(request.url ==
        "https://gitlab.example/api/v4/projects/group%2Fsub%2Fops/statuses/"
        "0123456789abcdef0123456789abcdef01234567");
  CHECK(request.headers == std::vector<std::string>{"PRIVATE-TOKEN: glpat"});
  auto body = opctl::model::Json::parse(request.body);
  CHECK(body["state"] == "failed");
  CHECK(body["name"] == "opctl/shop");
  event.result = "interrupted";
  CHECK(opctl::model::Json::parse(
            commit_status_request(entry_of(NotificationType::gitlab), event, "t").body)["state"] ==
        "canceled");
}

TEST_CASE("no commit, a dirty work tree or no repository is a NotificationError", "[notify]") {
  using opctl::notify::NotificationError;
  auto event = changed_pass();
  event.commit.clear();
  CHECK_THROWS_AS(commit_status_request(entry_of(NotificationType::github), event, "t"), NotificationError);
  event = changed_pass();
  event.commit += "-dirty";
  CHECK_THROWS_WITH(commit_status_request(entry_of(NotificationType::github), event, "t"),
                    Catch::Contains("uncommitted changes"));
  event = changed_pass();
  event.repo = "/srv/git/ops";
  CHECK_THROWS_WITH(commit_status_request(entry_of(NotificationType::gitlab), event, "t"),
                    Catch::Contains("set project in the entry"));
}
