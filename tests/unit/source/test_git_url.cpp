// Repository addresses: transports, parts, and credentials kept out of sight.
#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "source/git_url.hpp"

using opctl::source::GitTransport;
using opctl::source::parse_git_url;
using opctl::source::redact_credentials;

TEST_CASE("https URLs lose their user information for fetching and display", "[git_url]") {
  // Given a token in the URL, we should keep it for authentication but never in the URL we store or show.
  auto url = parse_git_url("https://oauth2:s3cr%40t@git.example.com:8443/team/repo.git", "/");
  CHECK(url.transport == GitTransport::https);
  CHECK(url.host == "git.example.com");
  CHECK(url.port == 8443);
  CHECK(url.username == "oauth2");
  CHECK(url.password == "s3cr@t");
  CHECK(url.path == "/team/repo.git");
  CHECK(url.fetch_url == "https://git.example.com:8443/team/repo.git");
  CHECK(url.display == url.fetch_url);
}

TEST_CASE("ssh URLs keep the user but not a password", "[git_url]") {
  auto url = parse_git_url("ssh://git:pw@127.0.0.1:2222/srv/repo.git", "/");
  CHECK(url.transport == GitTransport::ssh);
  CHECK(url.port == 2222);
  CHECK(url.username == "git");
  CHECK(url.password == "pw");
  CHECK(url.fetch_url == "ssh://git@127.0.0.1:2222/srv/repo.git");
  CHECK(opctl::source::ssh_port(url) == 2222);
  CHECK(opctl::source::ssh_port(parse_git_url("ssh://h/r", "/")) == 22);
}

TEST_CASE("scp-like addresses are ssh", "[git_url]") {
  auto url = parse_git_url("git@github.com:org/repo.git", "/");
  CHECK(url.transport == GitTransport::ssh);
  CHECK(url.host == "github.com");
  CHECK(url.username == "git");
  CHECK(url.path == "org/repo.git");
  CHECK(url.fetch_url == "git@github.com:org/repo.git");
  CHECK(parse_git_url("[::1]:repo.git", "/").host == "::1");
}

TEST_CASE("file URLs and paths are local", "[git_url]") {
  CHECK(parse_git_url("file:///srv/repo.git", "/").transport == GitTransport::file);
  CHECK(parse_git_url("file:///srv/repo.git", "/").path == "/srv/repo.git");
  auto relative = parse_git_url("./repos/../repo.git/", "/work");
  CHECK(relative.transport == GitTransport::local);
  CHECK(relative.fetch_url == "/work/repo.git");
  CHECK(parse_git_url("/abs/repo", "/work").path == "/abs/repo");
}

TEST_CASE("malformed addresses are input errors that do not echo secrets", "[git_url]") {
  CHECK_THROWS_AS(parse_git_url("", "/"), opctl::InvalidInputError);
  CHECK_THROWS_AS(parse_git_url("ftp://host/repo", "/"), opctl::InvalidInputError);
  CHECK_THROWS_AS(parse_git_url("https://host:99999/repo", "/"), opctl::InvalidInputError);
  try {
    parse_git_url("https://user:hunter2@host:bad/repo", "/");
    FAIL("no error");
  } catch (const opctl::InvalidInputError& error) {
    CHECK(std::string(error.what()).find("hunter2") == std::string::npos);
  }
}

TEST_CASE("credentials in URLs inside messages are masked", "[git_url]") {
  // Given a libgit2 message that quotes a URL, we should show no token or password.
  CHECK(redact_credentials("failed to fetch https://ghp_TOKEN@github.com/o/r.git: 401") ==
        "failed to fetch https://github.com/o/r.git: 401");
  CHECK(redact_credentials("http://user:pass@h:8080/x and https://h/y") == "http://h:8080/x and https://h/y");
  CHECK(redact_credentials("ssh://git:pw@host/r") == "ssh://git:***@host/r");
  CHECK(redact_credentials("ssh://git@host/r") == "ssh://git@host/r");
  CHECK(redact_credentials("no urls, just a token abc123 here", {"abc123"}) ==
        "no urls, just a token *** here");
  CHECK(redact_credentials("email a@b.c is no URL") == "email a@b.c is no URL");
}
