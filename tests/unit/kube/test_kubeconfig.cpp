#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "kube/base64.hpp"
#include "kube/cluster_config.hpp"
#include "kube/credentials.hpp"
#include "model/error.hpp"

namespace fs = std::filesystem;
using opctl::kube::ConfigRequest;
using opctl::kube::load_cluster_config;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("opctl-unit-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
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
    CHECK(opctl::kube::base64_decode(opctl::kube::base64_encode(text)) == text);
  CHECK_FALSE(opctl::kube::base64_decode("ab$c").has_value());
}
