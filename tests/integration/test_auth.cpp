// Every way opctl authenticates, against the real API server.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "kube/credentials.hpp"
#include "testenv.hpp"

using namespace opctl::integration;
namespace kube = opctl::kube;
namespace fs = std::filesystem;

namespace {

// A ServiceAccount that may only read ConfigMaps in its namespace.
void create_reader(Client& admin, const std::string& ns, const std::string& name) {
  admin.apply(
      {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}, {"namespace", ns}}}});
  admin.apply(
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "Role"},
       {"metadata", {{"name", name}, {"namespace", ns}}},
       {"rules",
        {{{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"get", "list", "watch"}}}}}});
  admin.apply({{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "RoleBinding"},
               {"metadata", {{"name", name}, {"namespace", ns}}},
               {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", name}}},
               {"subjects", {{{"kind", "ServiceAccount"}, {"name", name}, {"namespace", ns}}}}});
}

// The admin cluster without its client certificate, authenticating with `token`.
kube::ClusterConfig with_token(const std::string& token) {
  kube::ClusterConfig config = admin_config();
  config.client_cert_pem.clear();
  config.client_key_pem.clear();
  config.token = token;
  return config;
}

std::string server_port(const std::string& server) {
  return server.substr(server.rfind(':') + 1);
}

// The apiserver's address: 127.0.0.1, or the node's host link address when
// the control plane has a node.
std::string server_host(const std::string& server) {
  std::size_t start = server.find("://") + 3;
  return server.substr(start, server.rfind(':') - start);
}

int count_lines(const fs::path& file) {
  std::ifstream in(file);
  int lines = 0;
  for (std::string line; std::getline(in, line);)
    ++lines;
  return lines;
}

std::string ca_file(const ScratchDir& dir) {
  return dir.write("ca.crt", admin_config().ca_pem);
}

}  // namespace

TEST_CASE("a client certificate (the admin kubeconfig) authenticates as its common name", "[auth]") {
  Client admin(admin_config());
  CHECK(admin.whoami() == "testenv-admin");
}

TEST_CASE("a ServiceAccount bearer token authenticates as the ServiceAccount", "[auth]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  create_reader(admin, ns.name(), "reader");
  Client reader(with_token(mint_token(ns.name(), "reader")));
  CHECK(reader.whoami() == "system:serviceaccount:" + ns.name() + ":reader");
}

TEST_CASE("a token file is read again for the next batch, so a rotated token takes effect", "[auth]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  create_reader(admin, ns.name(), "first");
  create_reader(admin, ns.name(), "second");
  ScratchDir dir;
  std::string file = dir.write("token", mint_token(ns.name(), "first") + "\n");
  kube::ClusterConfig config = with_token("");
  config.token_file = file;
  Client client(config);
  CHECK(client.whoami() == "system:serviceaccount:" + ns.name() + ":first");
  dir.write("token", mint_token(ns.name(), "second"));
  CHECK(client.whoami() == "system:serviceaccount:" + ns.name() + ":second");
}

TEST_CASE("an exec plugin's token is cached until its expirationTimestamp, then the plugin runs again",
          "[auth]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  create_reader(admin, ns.name(), "plugin");
  ScratchDir dir;
  std::string token_file = dir.write("token", mint_token(ns.name(), "plugin"));
  std::string count_file = (dir.path / "runs").string();
  // The credential expires 15 s after each run; opctl renews 10 s early.
  std::string plugin = dir.write(
      "get-token.sh",
      "#!/bin/sh\n"
      "echo run >> \"$RUNS_FILE\"\n"
      "expiry=$(date -u -d '+15 seconds' +%Y-%m-%dT%H:%M:%SZ)\n"
      "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"%s\",\"expirationTimestamp\":\"%s\"}}' \"$(cat \"$1\")\" \"$expiry\"\n");
  fs::permissions(plugin, fs::perms::owner_all);
  kube::ClusterConfig admin_cluster = admin_config();
  std::string kubeconfig =
      dir.write("kubeconfig",
                "apiVersion: v1\nkind: Config\ncurrent-context: plugin\n"
                "clusters:\n- name: testenv\n  cluster:\n"
                "    server: " +
                    admin_cluster.server +
                    "\n"
                    "    certificate-authority: ca.crt\n"
                    "users:\n- name: plugin\n  user:\n    exec:\n"
                    "      apiVersion: client.authentication.k8s.io/v1\n"
                    "      command: ./get-token.sh\n"
                    "      args: [\"" +
                    token_file +
                    "\"]\n"
                    "      env: [{name: RUNS_FILE, value: \"" +
                    count_file +
                    "\"}]\n"
                    "      interactiveMode: Never\n"
                    "contexts:\n- name: plugin\n  context: {cluster: testenv, user: plugin}\n");
  ca_file(dir);
  Client client(config_from(kubeconfig));
  auto started = std::chrono::steady_clock::now();
  CHECK(client.whoami() == "system:serviceaccount:" + ns.name() + ":plugin");
  CHECK(client.whoami() == "system:serviceaccount:" + ns.name() + ":plugin");
  auto two_batches = std::chrono::steady_clock::now() - started;
  if (two_batches < std::chrono::seconds(4)) CHECK(count_lines(count_file) == 1);
  // Past expiry minus the renewal margin: the next batch runs the plugin again.
  std::this_thread::sleep_until(started + std::chrono::seconds(6));
  CHECK(client.whoami() == "system:serviceaccount:" + ns.name() + ":plugin");
  CHECK(count_lines(count_file) == 2);
}

TEST_CASE("in-cluster config: token, CA and namespace from the service account directory", "[auth]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  create_reader(admin, ns.name(), "incluster");
  ScratchDir dir;
  dir.write("sa/token", mint_token(ns.name(), "incluster"));
  dir.write("sa/ca.crt", admin_config().ca_pem);
  dir.write("sa/namespace", ns.name());

  auto saved = [](const char* name) {
    const char* value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  const char* names[] = {"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "OPCTL_SERVICEACCOUNT_DIR",
                         "KUBECONFIG", "HOME"};
  std::vector<std::optional<std::string>> before;
  for (const char* name : names)
    before.push_back(saved(name));
  setenv("KUBERNETES_SERVICE_HOST", server_host(admin_config().server).c_str(), 1);
  setenv("KUBERNETES_SERVICE_PORT", server_port(admin_config().server).c_str(), 1);
  setenv("OPCTL_SERVICEACCOUNT_DIR", (dir.path / "sa").c_str(), 1);
  unsetenv("KUBECONFIG");
  setenv("HOME", (dir.path / "empty-home").c_str(), 1);
  kube::ClusterConfig config = kube::load_cluster_config(kube::config_request_from_environment("", ""));
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i])
      setenv(names[i], before[i]->c_str(), 1);
    else
      unsetenv(names[i]);
  }
  CHECK(config.context_name == "in-cluster");
  CHECK(config.namespace_name == ns.name());
  Client client(config);
  CHECK(client.whoami() == "system:serviceaccount:" + ns.name() + ":incluster");
}

TEST_CASE("a ServiceAccount with a narrow Role gets a typed Forbidden that names it and the resource",
          "[auth]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  create_reader(admin, ns.name(), "narrow");
  Client narrow(with_token(mint_token(ns.name(), "narrow")));
  CHECK(narrow.api.list(narrow.resource("v1", "ConfigMap"), ns.name()).size() >= 1);  // kube-root-ca.crt

  try {
    narrow.api.list(narrow.resource("v1", "Secret"), ns.name());
    FAIL("listing Secrets was allowed");
  } catch (const kube::ApiError& error) {
    CHECK(error.status().reason == kube::ApiReason::forbidden);
    CHECK(error.status().code == 403);
    CHECK_THAT(error.what(), Catch::Contains("system:serviceaccount:" + ns.name() + ":narrow") &&
                                 Catch::Contains("secrets") && Catch::Contains("list"));
  }
  auto create = narrow.api.execute(
      narrow.api.create_request(narrow.resource("v1", "ConfigMap"),
                                opctl::model::Object(config_map(ns.name(), "nope", {{"a", "b"}})), false));
  CHECK(create.status.reason == kube::ApiReason::forbidden);
  CHECK_THAT(create.status.message, Catch::Contains("cannot create resource \"configmaps\""));
}

TEST_CASE("tls-server-name verifies the certificate against that name instead of the address", "[auth]") {
  kube::ClusterConfig config = admin_config();
  config.tls_server_name = "kubernetes.default.svc";  // a SAN of the serving certificate
  CHECK(Client(config).whoami() == "testenv-admin");

  config.tls_server_name = "not-in-the-certificate.example";
  kube::TransportOptions options;
  options.max_attempts = 1;
  Client wrong(config, options);
  auto response = wrong.transport->send(request("GET", "/version"));
  CHECK(response.status == 0);
  CHECK_THAT(response.transport_error, Catch::Contains("not-in-the-certificate.example"));
}
