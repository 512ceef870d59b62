#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/credentials.hpp"
#include "model/error.hpp"
#include "model/object.hpp"

namespace fs = std::filesystem;
using opctl::kube::ClusterConfig;
using opctl::kube::CredentialSource;
using opctl::kube::ExecPlugin;
using opctl::model::Json;

namespace {

struct PluginDir {
  fs::path path = fs::temp_directory_path() / ("opctl-exec-" + std::to_string(::getpid()));
  PluginDir() {
    fs::remove_all(path);
    fs::create_directories(path);
    write("plugin.sh",
          "#!/bin/sh\n"
          "echo run >> \"$COUNT_FILE\"\n"
          "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$INFO_FILE\"\n"
          "cat \"$1\"\n");
    fs::permissions(path / "plugin.sh", fs::perms::owner_all);
  }
  ~PluginDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
  std::string read(const std::string& name) const {
    std::ifstream in(path / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  int runs() const {
    std::ifstream in(path / "count");
    int lines = 0;
    for (std::string line; std::getline(in, line);)
      ++lines;
    return lines;
  }
  void credential(const std::string& token, std::optional<std::chrono::seconds> expires_in) const {
    Json status = {{"token", token}};
    if (expires_in) {
      std::time_t at = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + *expires_in);
      char text[32];
      std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&at));
      status["expirationTimestamp"] = text;
    }
    write("credential.json", Json{{"apiVersion", "client.authentication.k8s.io/v1"},
                                  {"kind", "ExecCredential"},
                                  {"status", status}}
                                 .dump());
  }
  ClusterConfig cluster() const {
    ClusterConfig config;
    config.server = "https://127.0.0.1:6443";
    config.ca_pem = "CA";
    ExecPlugin plugin;
    plugin.command = (path / "plugin.sh").string();
    plugin.args = {(path / "credential.json").string()};
    plugin.env = {{"COUNT_FILE", (path / "count").string()}, {"INFO_FILE", (path / "info").string()}};
    plugin.provide_cluster_info = true;
    config.exec = plugin;
    return config;
  }
};

}  // namespace

TEST_CASE("an exec plugin's token is cached until shortly before it expires", "[credentials]") {
  PluginDir dir;
  SECTION("an hour left: one run for many batches") {
    dir.credential("t1", std::chrono::hours(1));
    CredentialSource source(dir.cluster());
    for (int i = 0; i < 3; ++i)
      CHECK(source.current().bearer_token == "t1");
    CHECK(dir.runs() == 1);
  }
  SECTION("inside the renewal margin: every batch runs it again") {
    dir.credential("t2", opctl::kube::k_exec_renew_margin / 2);
    CredentialSource source(dir.cluster());
    source.current();
    source.current();
    CHECK(dir.runs() == 2);
  }
  SECTION("no expiry: cached until the server rejects it") {
    dir.credential("t3", std::nullopt);
    CredentialSource source(dir.cluster());
    source.current();
    source.current();
    CHECK(dir.runs() == 1);
    source.expire();
    dir.credential("t4", std::nullopt);
    CHECK(source.current().bearer_token == "t4");
    CHECK(dir.runs() == 2);
  }
}

TEST_CASE("an exec plugin gets its env, args and KUBERNETES_EXEC_INFO with the cluster", "[credentials]") {
  PluginDir dir;
  dir.credential("t", std::nullopt);
  CredentialSource(dir.cluster()).current();
  Json info = Json::parse(dir.read("info"));
  CHECK(info["kind"] == "ExecCredential");
  CHECK(info["apiVersion"] == "client.authentication.k8s.io/v1");
  CHECK(info["spec"]["interactive"] == false);
  CHECK(info["spec"]["cluster"]["server"] == "https://127.0.0.1:6443");
  CHECK(info["spec"]["cluster"]["certificate-authority-data"] == "Q0E=");
}

TEST_CASE("exec plugin failures say what went wrong", "[credentials]") {
  PluginDir dir;
  ClusterConfig cluster = dir.cluster();
  SECTION("non-zero exit with stderr") {
    dir.write("fail.sh", "#!/bin/sh\necho 'login expired' >&2\nexit 3\n");
    fs::permissions(dir.path / "fail.sh", fs::perms::owner_all);
    cluster.exec->command = (dir.path / "fail.sh").string();
    CHECK_THROWS_WITH(CredentialSource(cluster).current(), Catch::Contains("exit code 3: login expired"));
  }
  SECTION("missing command with an install hint") {
    cluster.exec->command = "opctl-no-such-plugin";
    cluster.exec->install_hint = "install it with: apt install opctl-plugin\n";
    CHECK_THROWS_WITH(
        CredentialSource(cluster).current(),
        Catch::Contains("could not be run (No such file") && Catch::Contains("apt install opctl-plugin"));
  }
  SECTION("a plugin that runs and exits 127 itself is a failed plugin, not a missing one") {
    dir.write("inner.sh", "#!/bin/sh\necho 'get-token: command not found' >&2\nexit 127\n");
    fs::permissions(dir.path / "inner.sh", fs::perms::owner_all);
    cluster.exec->command = (dir.path / "inner.sh").string();
    cluster.exec->install_hint = "install it with: apt install opctl-plugin\n";
    CHECK_THROWS_WITH(CredentialSource(cluster).current(),
                      Catch::Contains("exit code 127: get-token: command not found") &&
                          !Catch::Contains("apt install opctl-plugin"));
  }
  SECTION("interactive plugins are refused") {
    cluster.exec->interactive_mode = "Always";
    CHECK_THROWS_WITH(CredentialSource(cluster).current(), Catch::Contains("interactive"));
  }
  SECTION("a plugin that prints nothing gets its own message, with its stderr") {
    dir.write("empty.sh", "#!/bin/sh\necho 'no session, run login' >&2\nexit 0\n");
    fs::permissions(dir.path / "empty.sh", fs::perms::owner_all);
    cluster.exec->command = (dir.path / "empty.sh").string();
    CHECK_THROWS_WITH(CredentialSource(cluster).current(), Catch::Contains("printed nothing on stdout") &&
                                                               Catch::Contains("no session, run login"));
  }
  SECTION("a malformed expiry") {
    dir.write("credential.json",
              R"({"kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"soon"}})");
    CHECK_THROWS_WITH(CredentialSource(cluster).current(), Catch::Contains("not RFC 3339"));
  }
}

TEST_CASE("a hanging exec plugin is killed, with its children, after the timeout", "[credentials]") {
  // Given a plugin whose child sleeps for ever, we should fail within the timeout and name the plugin.
  PluginDir dir;
  ClusterConfig cluster = dir.cluster();
  dir.write("hang.sh", "#!/bin/sh\necho 'waiting for the browser' >&2\nsleep 1000\n");
  fs::permissions(dir.path / "hang.sh", fs::perms::owner_all);
  cluster.exec->command = (dir.path / "hang.sh").string();
  cluster.exec->timeout = std::chrono::seconds(1);
  auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(CredentialSource(cluster).current(),
                    Catch::Contains("hang.sh did not finish within 1s") &&
                        Catch::Contains("--exec-timeout") && Catch::Contains("waiting for the browser"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
}

TEST_CASE("RFC 3339 timestamps with fractions and offsets", "[credentials]") {
  auto seconds = [](const std::string& text) {
    auto parsed = opctl::kube::parse_rfc3339(text);
    return parsed ? std::chrono::system_clock::to_time_t(*parsed) : std::time_t(-1);
  };
  CHECK(seconds("2030-01-02T03:04:05Z") == 1893553445);
  CHECK(seconds("2030-01-02T03:04:05.123456Z") == 1893553445);
  CHECK(seconds("2030-01-02T05:04:05+02:00") == 1893553445);
  CHECK(seconds("2030-01-02T01:04:05-02:00") == 1893553445);
  CHECK(seconds("2030-01-02 03:04:05") == -1);
  CHECK(seconds("tomorrow") == -1);
}

TEST_CASE("a token file is read again for every batch, so a rotated token is used", "[credentials]") {
  PluginDir dir;
  dir.write("token", "first\n");
  ClusterConfig cluster;
  cluster.token = "static";
  cluster.token_file = (dir.path / "token").string();
  CredentialSource source(cluster);
  CHECK(source.current().bearer_token == "first");
  dir.write("token", "second");
  CHECK(source.current().bearer_token == "second");
  fs::remove(dir.path / "token");
  CHECK_THROWS_WITH(source.current(), Catch::Contains("unreadable"));
}
