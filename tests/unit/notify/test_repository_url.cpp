// The repository a commit status goes to, told from the source's git URL.
#include <catch2/catch.hpp>

#include "notify/repository_url.hpp"

using opctl::notify::parse_repository_url;

TEST_CASE("https, ssh and scp-style URLs give the host and the repository path", "[notify]") {
  auto https = parse_repository_url("https://token@github.com/acme/ops.git");
  REQUIRE(https);
  CHECK(https->scheme == "https");
  CHECK(https->host == "github.com");
  CHECK(https->path == "acme/ops");
  auto ssh = parse_repository_url("ssh://git@gitlab.example:2222/group/sub/ops.git");
  REQUIRE(ssh);
  CHECK(ssh->host == "gitlab.example");
  CHECK(ssh->path == "group/sub/ops");
  auto scp = parse_repository_url("git@github.com:acme/ops.git");
  REQUIRE(scp);
  CHECK(scp->host == "github.com");
  CHECK(scp->path == "acme/ops");
  auto port = parse_repository_url("http://127.0.0.1:8080/acme/ops/");
  REQUIRE(port);
  CHECK(port->host == "127.0.0.1:8080");
  CHECK(port->path == "acme/ops");
}

TEST_CASE("a local path or a URL without an owner gives no repository", "[notify]") {
  CHECK_FALSE(parse_repository_url("/srv/git/ops.git"));
  CHECK_FALSE(parse_repository_url("https://git.example/ops.git"));
  CHECK_FALSE(parse_repository_url(""));
}
