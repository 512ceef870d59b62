// What the integration tests share: the running control plane (tests/testenv),
// clients for it, throwaway namespaces, ServiceAccount tokens, and the
// fault-injecting, request-counting proxy.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "kube/api_client.hpp"
#include "kube/cluster_config.hpp"
#include "kube/http_transport.hpp"
#include "kube/rest_mapper.hpp"

namespace opctl::integration {

using model::Json;

// OPCTL_TESTENV_DIR (a running `testenv up`); main() checks it first.
std::string testenv_dir();
// Why the suite cannot run, or empty when it can.
std::string missing_prerequisite();
// OPCTL_TESTENV_BIN, else what tests/testenv/build.sh prints (cached binary).
std::string testenv_binary();

// The admin kubeconfig's cluster (client certificate of system:masters).
kube::ClusterConfig admin_config();
// A cluster config from a kubeconfig file.
kube::ClusterConfig config_from(const std::string& kubeconfig);

// A transport, a mapper and a client over one connection pool.
struct Client {
  explicit Client(const kube::ClusterConfig& config, kube::TransportOptions options = {});
  kube::ClusterConfig config;
  std::unique_ptr<kube::HttpTransport> transport;
  kube::RestMapper mapper;
  kube::ApiClient api;

  kube::ResourceInfo resource(const std::string& api_version, const std::string& kind);
  // Throws on failure, with the status in the message.
  Json must(const kube::HttpRequest& request);
  Json apply(const Json& object, kube::ApplyOptions options = {});
  // nullopt when NotFound.
  std::optional<Json> get(const std::string& api_version, const std::string& kind,
                          const std::string& namespace_name, const std::string& name);
  // The identity the server sees ("system:serviceaccount:ns:name").
  std::string whoami();
};

// A bodiless request.
kube::HttpRequest request(const std::string& method, const std::string& path);

// "prefix-<pid>-<n>-<random>", lower case, short enough for a name.
std::string unique_name(const std::string& prefix);

// A namespace created for one test and deleted (without waiting) after it.
class TestNamespace {
 public:
  explicit TestNamespace(Client& admin, const std::string& prefix = "kt");
  ~TestNamespace();
  TestNamespace(const TestNamespace&) = delete;
  TestNamespace& operator=(const TestNamespace&) = delete;
  const std::string& name() const { return name_; }

 private:
  Client& admin_;
  std::string name_;
};

// A namespaced CRD (kind Gizmo, plural gizmos, version v1, open schema, a
// status subresource) in a group of its own, Established before the
// constructor returns, deleted afterwards.
class TestCrd {
 public:
  explicit TestCrd(Client& admin);
  ~TestCrd();
  TestCrd(const TestCrd&) = delete;
  TestCrd& operator=(const TestCrd&) = delete;
  std::string api_version() const { return group_ + "/v1"; }
  // Waits until `client`'s discovery serves the kind (a miss refreshes it).
  kube::ResourceInfo resource(Client& client) const;
  // A Gizmo named `name` with `fields` (spec, status, ...) merged in.
  Json object(const std::string& namespace_name, const std::string& name,
              const Json& fields = Json::object()) const;

 private:
  Client& admin_;
  std::string group_;
};

// A ServiceAccount token from the TokenRequest API (`testenv token`).
std::string mint_token(const std::string& namespace_name, const std::string& service_account);

// A ConfigMap body.
Json config_map(const std::string& namespace_name, const std::string& name, const Json& data,
                const Json& labels = Json::object());

// Polls `done` until it is true or `timeout` passes; returns its last value.
bool eventually(const std::function<bool()>& done,
                std::chrono::milliseconds timeout = std::chrono::seconds(60),
                std::chrono::milliseconds interval = std::chrono::milliseconds(200));

// A scratch directory removed afterwards.
struct ScratchDir {
  ScratchDir();
  ~ScratchDir();
  std::filesystem::path path;
  std::string write(const std::string& name, const std::string& text) const;
};

// `testenv proxy` in front of the control plane, started on a free port (or
// a given one, to restart it where clients expect it).
class Proxy {
 public:
  explicit Proxy(int port = 0);
  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  int port() const { return port_; }
  // The proxy's kubeconfig: the admin client certificate, server = the proxy.
  kube::ClusterConfig config() const;
  // Replaces the fault rules (written atomically; the proxy re-reads them per request).
  void faults(const Json& rules) const;
  // GET /__testenv/requests, or POST .../reset (returning the counts before it).
  Json counts() const;
  Json reset_counts() const;
  // Stops the process (open connections break) and starts it again on the same port.
  void restart();
  void stop();

 private:
  void start(int port);

  ScratchDir scratch_;
  std::string fault_file_;
  pid_t pid_ = -1;
  int port_ = 0;
  kube::ClusterConfig config_;
};

}  // namespace opctl::integration
