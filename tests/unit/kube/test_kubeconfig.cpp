#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "kube/cluster_config.hpp"
#include "kube/credentials.hpp"
#include "model/base64.hpp"
#include "model/error.hpp"

namespace fs = std::filesystem;
using opctl::kube::ConfigRequest;
using opctl::kube::load_cluster_config;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("opctl-unit-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int value = 0;
    return value;
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

const char* k_basic = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example:6443/
    certificate-authority: ca.crt
- name: prod-cluster
  cluster:
    server: https://prod.example
    insecure-skip-tls-verify: true
    tls-server-name: api.prod
users:
- name: dev-user
  user:
    token: dev-token
- name: prod-user
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: shop}
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
)";
}  // namespace

TEST_CASE("the current context resolves cluster, user, namespace and relative CA paths", "[kubeconfig]") {
  TempDir dir;
  dir.write("ca.crt", "CA PEM");
  ConfigRequest request;
  request.kubeconfig = dir.write("config", k_basic);
  auto config = load_cluster_config(request);
  CHECK(config.server == "https://dev.example:6443");
  CHECK(config.ca_pem == "CA PEM");
  CHECK(config.token == "dev-token");
  CHECK(config.namespace_name == "shop");
  CHECK(config.context_name == "dev");
}

TEST_CASE("--context picks another context; data fields are base64-decoded", "[kubeconfig]") {
  TempDir dir;
  ConfigRequest request;
  request.kubeconfig = dir.write("config", k_basic);
  request.context = "prod";
  auto config = load_cluster_config(request);
  CHECK(config.insecure_skip_tls_verify);
  CHECK(config.tls_server_name == "api.prod");
  CHECK(config.client_cert_pem == "CERT");
  CHECK(config.client_key_pem == "KEY");
  CHECK(config.namespace_name == "default");
}

TEST_CASE("KUBECONFIG files merge: the first to define a name or current-context wins", "[kubeconfig]") {
  TempDir dir;
  std::string first = dir.write("first", R"(clusters:
- name: c
  cluster: {server: "https://first"}
users:
- name: u
  user: {token: first-token}
contexts:
- name: x
  context: {cluster: c, user: u}
)");
  std::string second = dir.write("second", R"(current-context: x
clusters:
- name: c
  cluster: {server: "https://second"}
contexts:
- name: x
  context: {cluster: c, user: u, namespace: ignored}
)");
  ConfigRequest request;
  request.kubeconfig_env = first + ":" + dir.path.string() + "/missing:" + second;
  auto config = load_cluster_config(request);
  CHECK(config.server == "https://first");
  CHECK(config.token == "first-token");
  CHECK(config.namespace_name == "default");
}

TEST_CASE("malformed kubeconfigs give errors that name the problem", "[kubeconfig]") {
  TempDir dir;
  ConfigRequest request;
  SECTION("missing context") {
    request.kubeconfig = dir.write("config", k_basic);
    request.context = "nope";
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("context \"nope\" not found in"));
  }
  SECTION("not YAML") {
    request.kubeconfig = dir.write("config", "clusters: [\n");
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("kubeconfig is not valid YAML"));
  }
  SECTION("unreadable certificate file") {
    request.kubeconfig = dir.write("config", R"(current-context: a
clusters: [{name: c, cluster: {server: "https://x", certificate-authority: /nonexistent/ca.crt}}]
contexts: [{name: a, context: {cluster: c}}]
)");
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("/nonexistent/ca.crt is unreadable"));
  }
  SECTION("bad base64") {
    request.kubeconfig = dir.write("config", R"(current-context: a
clusters: [{name: c, cluster: {server: "https://x", certificate-authority-data: "!!!"}}]
contexts: [{name: a, context: {cluster: c}}]
)");
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("not valid base64"));
  }
  SECTION("clusters not a list") {
    request.kubeconfig = dir.write("config", "clusters: 5\n");
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("clusters must be a list"));
  }
  SECTION("nothing at all") {
    request.home = dir.path.string();
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("no kubeconfig found"));
  }
}

TEST_CASE("in-cluster config reads the service account directory", "[kubeconfig]") {
  TempDir dir;
  dir.write("token", "sa-token\n");
  dir.write("ca.crt", "CLUSTER CA");
  dir.write("namespace", "opctl-system\n");
  ConfigRequest request;
  request.home = (dir.path / "nohome").string();
  request.service_account_dir = dir.path.string();
  request.service_host = "10.0.0.1";
  request.service_port = "443";
  auto config = load_cluster_config(request);
  CHECK(config.server == "https://10.0.0.1:443");
  CHECK(config.ca_pem == "CLUSTER CA");
  CHECK(config.namespace_name == "opctl-system");
  CHECK(opctl::kube::CredentialSource(config).current().bearer_token == "sa-token");
}

TEST_CASE("ExecCredential output is parsed, and bad output is a clear error", "[kubeconfig]") {
  std::chrono::system_clock::time_point expiry;
  bool has_expiry = false;
  auto credential = opctl::kube::parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
          "status":{"token":"abc","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      "plugin", expiry, has_expiry);
  CHECK(credential.bearer_token == "abc");
  CHECK(has_expiry);
  CHECK(std::chrono::system_clock::to_time_t(expiry) == 1893553445);
  CHECK_THROWS_WITH(opctl::kube::parse_exec_credential("not json", "plugin", expiry, has_expiry),
                    Catch::Contains("not an ExecCredential"));
}

TEST_CASE("base64 round-trips and rejects junk", "[base64]") {
  for (std::string text : {"", "a", "ab", "abc", "abcd", "hello world\n"})
    CHECK(opctl::model::base64_decode(opctl::model::base64_encode(text)) == text);
  CHECK_FALSE(opctl::model::base64_decode("ab$c").has_value());
}

TEST_CASE("exec plugins: args, env, cluster info, hints; relative commands resolve against the kubeconfig",
          "[kubeconfig]") {
  TempDir dir;
  ConfigRequest request;
  request.kubeconfig = dir.write("config", R"(current-context: a
clusters:
- name: c
  cluster:
    server: https://x:6443
    tls-server-name: api.internal
    proxy-url: socks5://proxy.example:1080
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/get-token
      args: [--cluster, prod, "--verbose=false"]
      env:
      - {name: AWS_PROFILE, value: prod}
      - {name: EMPTY}
      provideClusterInfo: true
      interactiveMode: Never
      installHint: "brew install get-token"
contexts: [{name: a, context: {cluster: c, user: u}}]
)");
  auto config = load_cluster_config(request);
  REQUIRE(config.exec);
  CHECK(config.exec->command == (dir.path / "bin/get-token").string());
  CHECK(config.exec->args == std::vector<std::string>{"--cluster", "prod", "--verbose=false"});
  CHECK(config.exec->env == std::map<std::string, std::string>{{"AWS_PROFILE", "prod"}, {"EMPTY", ""}});
  CHECK(config.exec->provide_cluster_info);
  CHECK(config.exec->interactive_mode == "Never");
  CHECK(config.exec->install_hint == "brew install get-token");
  CHECK(config.tls_server_name == "api.internal");
  CHECK(config.proxy_url == "socks5://proxy.example:1080");
  CHECK_FALSE(config.insecure_skip_tls_verify);

  auto info = nlohmann::json::parse(opctl::kube::exec_info(config));
  CHECK(info["spec"]["cluster"]["tls-server-name"] == "api.internal");
  CHECK(info["spec"]["cluster"]["proxy-url"] == "socks5://proxy.example:1080");
}

TEST_CASE("a bare exec command is looked up in PATH, not next to the kubeconfig", "[kubeconfig]") {
  TempDir dir;
  ConfigRequest request;
  request.kubeconfig = dir.write("config", R"(current-context: a
clusters: [{name: c, cluster: {server: "https://x"}}]
users: [{name: u, user: {exec: {command: aws, args: [eks, get-token]}}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
)");
  CHECK(load_cluster_config(request).exec->command == "aws");
}

TEST_CASE("malformed exec sections and flags are errors that point at the line", "[kubeconfig]") {
  TempDir dir;
  ConfigRequest request;
  auto with_user = [&](const std::string& user) {
    return dir.write("config",
                     "current-context: a\nclusters: [{name: c, cluster: {server: \"https://x\"}}]\n"
                     "users:\n- name: u\n  user:\n" +
                         user + "contexts: [{name: a, context: {cluster: c, user: u}}]\n");
  };
  SECTION("args not a list") {
    request.kubeconfig = with_user("    exec: {command: x, args: --flag}\n");
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("exec args must be a list"));
  }
  SECTION("an arg that is a mapping") {
    request.kubeconfig = with_user("    exec: {command: x, args: [{a: b}]}\n");
    CHECK_THROWS_WITH(load_cluster_config(request),
                      Catch::Contains("config:6: every exec arg must be a string"));
  }
  SECTION("an env entry without a name") {
    request.kubeconfig = with_user("    exec:\n      command: x\n      env: [{value: v}]\n");
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("exec env entry needs a name"));
  }
  SECTION("exec that is not a mapping") {
    request.kubeconfig = with_user("    exec: get-token\n");
    CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("exec must be a mapping"));
  }
  SECTION("insecure-skip-tls-verify that is not a boolean") {
    request.kubeconfig = dir.write("config", R"(current-context: a
clusters: [{name: c, cluster: {server: "https://x", insecure-skip-tls-verify: maybe}}]
contexts: [{name: a, context: {cluster: c}}]
)");
    CHECK_THROWS_WITH(load_cluster_config(request),
                      Catch::Contains("insecure-skip-tls-verify must be true or false"));
  }
  SECTION("insecure together with a CA, which kubectl refuses") {
    request.kubeconfig = dir.write("config", R"(current-context: a
clusters: [{name: c, cluster: {server: "https://x", insecure-skip-tls-verify: true, certificate-authority-data: Q0E=}}]
contexts: [{name: a, context: {cluster: c}}]
)");
    CHECK_THROWS_WITH(load_cluster_config(request),
                      Catch::Contains("both a certificate authority and insecure-skip-tls-verify"));
  }
}

TEST_CASE("a set KUBECONFIG replaces ~/.kube/config even when its files are missing", "[kubeconfig]") {
  TempDir dir;
  fs::create_directories(dir.path / ".kube");
  dir.write(".kube/config", k_basic);
  dir.write(".kube/ca.crt", "CA");
  ConfigRequest request;
  request.home = dir.path.string();
  CHECK(load_cluster_config(request).context_name == "dev");
  request.kubeconfig_env = (dir.path / "missing").string();
  CHECK_THROWS_WITH(load_cluster_config(request), Catch::Contains("the files in KUBECONFIG="));
}

TEST_CASE("in-cluster config comes from the environment variables kubectl and opctl read", "[kubeconfig]") {
  TempDir dir;
  dir.write("token", "env-token");
  dir.write("ca.crt", "CA");
  auto saved = [](const char* name) {
    return std::getenv(name) ? std::optional<std::string>(std::getenv(name)) : std::nullopt;
  };
  auto restore = [](const char* name, const std::optional<std::string>& value) {
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  };
  auto host = saved("KUBERNETES_SERVICE_HOST"), port = saved("KUBERNETES_SERVICE_PORT"),
       sa = saved("OPCTL_SERVICEACCOUNT_DIR"), kubeconfig = saved("KUBECONFIG"), home = saved("HOME");
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
  setenv("OPCTL_SERVICEACCOUNT_DIR", dir.path.c_str(), 1);
  unsetenv("KUBECONFIG");
  setenv("HOME", (dir.path / "nohome").c_str(), 1);
  auto config = load_cluster_config(opctl::kube::config_request_from_environment("", ""));
  restore("KUBERNETES_SERVICE_HOST", host);
  restore("KUBERNETES_SERVICE_PORT", port);
  restore("OPCTL_SERVICEACCOUNT_DIR", sa);
  restore("KUBECONFIG", kubeconfig);
  restore("HOME", home);
  CHECK(config.server == "https://[fd00::1]:6443");
  CHECK(config.namespace_name == "default");
  CHECK(config.token_file == (dir.path / "token").string());
  CHECK(config.context_name == "in-cluster");
}
