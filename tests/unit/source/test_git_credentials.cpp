// Authentication planning and host key messages (no network).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "model/base64.hpp"
#include "model/error.hpp"
#include "source/git_credentials.hpp"
#include "source/git_digest.hpp"

using namespace opctl::source;
using opctl::model::base64_decode;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("opctl-cred-test-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& content) const {
    fs::create_directories((path / name).parent_path());
    std::ofstream(path / name) << content;
    return (path / name).string();
  }
};

AuthEnvironment environment_in(const TempDir& dir) {
  return {dir.path.string(), (dir.path / ".netrc").string(), false};
}

const char* k_ed25519 = "AAAAC3NzaC1lZDI1NTE5AAAAIMRT+ZMhaGFKeDI+UzM4+8i/s7/ZYfYWZzQglNgz7bWz";

}  // namespace

TEST_CASE("a token is sent as basic auth with x-access-token or the URL's user", "[git_credentials]") {
  TempDir dir;
  GitCredentials credentials;
  credentials.token_file = dir.write("token", "tok123\n");
  auto auth =
      plan_auth(parse_git_url("https://git.example.com/r.git", "/"), credentials, environment_in(dir));
  REQUIRE(auth.candidates.size() == 1);
  CHECK(auth.candidates[0].username == "x-access-token");
  CHECK(auth.candidates[0].secret == "tok123");
  CHECK(auth.secrets == std::vector<std::string>{"tok123"});
  auto gitlab = plan_auth(parse_git_url("https://oauth2@gitlab.example.com/r.git", "/"), credentials,
                          environment_in(dir));
  CHECK(gitlab.candidates[0].username == "oauth2");
}

TEST_CASE("the token file wins over OPCTL_GIT_TOKEN, basic auth over both", "[git_credentials]") {
  TempDir dir;
  GitCredentials credentials;
  credentials.token = "from-env";
  auto url = parse_git_url("https://h/r.git", "/");
  CHECK(plan_auth(url, credentials, environment_in(dir)).candidates[0].description ==
        "token from OPCTL_GIT_TOKEN");
  credentials.token_file = dir.write("token", "from-file");
  CHECK(plan_auth(url, credentials, environment_in(dir)).candidates[0].secret == "from-file");
  credentials.basic_auth_file = dir.write("basic", "alice:pa:ss\n");
  auto auth = plan_auth(url, credentials, environment_in(dir));
  REQUIRE(auth.candidates.size() == 1);
  CHECK(auth.candidates[0].username == "alice");
  CHECK(auth.candidates[0].secret == "pa:ss");
}

TEST_CASE("without flags, URL credentials and then .netrc are used", "[git_credentials]") {
  TempDir dir;
  dir.write(".netrc", "machine h login bob password netpw\n");
  auto from_url = plan_auth(parse_git_url("https://u:urlpw@h/r.git", "/"), {}, environment_in(dir));
  CHECK(from_url.candidates.at(0).secret == "urlpw");
  auto from_netrc = plan_auth(parse_git_url("https://h/r.git", "/"), {}, environment_in(dir));
  REQUIRE(from_netrc.candidates.size() == 1);
  CHECK(from_netrc.candidates[0].username == "bob");
  CHECK(plan_auth(parse_git_url("https://other/r.git", "/"), {}, environment_in(dir)).candidates.empty());
}

TEST_CASE("unreadable or malformed credential files are input errors", "[git_credentials]") {
  TempDir dir;
  auto url = parse_git_url("https://h/r.git", "/");
  GitCredentials missing;
  missing.token_file = (dir.path / "nope").string();
  CHECK_THROWS_AS(plan_auth(url, missing, environment_in(dir)), opctl::InvalidInputError);
  GitCredentials no_colon;
  no_colon.basic_auth_file = dir.write("basic", "justauser\n");
  CHECK_THROWS_AS(plan_auth(url, no_colon, environment_in(dir)), opctl::InvalidInputError);
  GitCredentials empty;
  empty.token_file = dir.write("empty", "\n");
  CHECK_THROWS_AS(plan_auth(url, empty, environment_in(dir)), opctl::InvalidInputError);
  GitCredentials known_hosts;
  known_hosts.known_hosts_file = (dir.path / "nope").string();
  CHECK_THROWS_AS(plan_auth(parse_git_url("ssh://h/r", "/"), known_hosts, environment_in(dir)),
                  opctl::InvalidInputError);
}

TEST_CASE("ssh offers the key file, or the agent and the default keys", "[git_credentials]") {
  TempDir dir;
  auto url = parse_git_url("ssh://deploy@h:2222/r.git", "/");
  GitCredentials with_key;
  with_key.ssh_key_file = dir.write("key", "PRIVATE");
  with_key.ssh_passphrase_file = dir.write("phrase", "open sesame\n");
  auto auth = plan_auth(url, with_key, environment_in(dir));
  REQUIRE(auth.candidates.size() == 1);
  CHECK(auth.candidates[0].kind == CredentialCandidate::Kind::ssh_key);
  CHECK(auth.candidates[0].username == "deploy");
  CHECK(auth.candidates[0].secret == "open sesame");
  CHECK(auth.verify_host_key);

  dir.write(".ssh/id_ed25519", "PRIVATE");
  auto environment = environment_in(dir);
  environment.ssh_agent = true;
  auto defaults = plan_auth(parse_git_url("git@h:r.git", "/"), {}, environment);
  REQUIRE(defaults.candidates.size() == 2);
  CHECK(defaults.candidates[0].kind == CredentialCandidate::Kind::ssh_agent);
  CHECK(defaults.candidates[1].key_file == (dir.path / ".ssh/id_ed25519").string());
}

TEST_CASE("host key problems say what to do", "[git_credentials]") {
  TempDir dir;
  auto url = parse_git_url("ssh://git@127.0.0.1:2222/srv/r.git", "/");
  GitCredentials credentials;
  credentials.known_hosts_file =
      dir.write("known_hosts", "[127.0.0.1]:2222 ssh-ed25519 " + std::string(k_ed25519) + "\n");
  auto auth = plan_auth(url, credentials, environment_in(dir));
  std::string key = *base64_decode(k_ed25519);
  CHECK(host_key_problem(url, auth, key).empty());
  std::string changed = key;
  changed.back() ^= 1;
  CHECK_THAT(host_key_problem(url, auth, changed), Catch::Contains("does not match its ssh-ed25519 key in"));
  auto other_port = parse_git_url("ssh://git@127.0.0.1:2223/srv/r.git", "/");
  std::string unknown = host_key_problem(other_port, auth, key);
  CHECK_THAT(unknown, Catch::Contains("[127.0.0.1]:2223 is not in"));
  CHECK_THAT(unknown, Catch::Contains("ssh-keyscan -p 2223 127.0.0.1"));
  CHECK_THAT(unknown, Catch::Contains("--git-insecure-ignore-host-key"));
  credentials.insecure_ignore_host_key = true;
  CHECK_FALSE(plan_auth(url, credentials, environment_in(dir)).verify_host_key);
}
