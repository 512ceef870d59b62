#include "testenv.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "process/child_process.hpp"

namespace opctl::integration {
namespace {

namespace fs = std::filesystem;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

std::string trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  return text;
}

std::atomic<int> g_names{0};

// Reads one line from `fd`, waiting at most `timeout`.
std::string read_line(int fd, std::chrono::seconds timeout) {
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char c = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd waiting{fd, POLLIN, 0};
    if (poll(&waiting, 1, 200) <= 0) continue;
    if (read(fd, &c, 1) != 1) break;
    if (c == '\n') return line;
    line += c;
  }
  return line;
}

}  // namespace

std::string testenv_dir() {
  return environment("OPCTL_TESTENV_DIR");
}

std::string missing_prerequisite() {
  std::string dir = testenv_dir();
  if (dir.empty())
    return "OPCTL_TESTENV_DIR is not set: run the suite through ctest (fixture testenv), or point it at a "
           "directory where `testenv up --dir DIR` runs";
  if (!fs::exists(fs::path(dir) / "kubeconfig"))
    return dir + "/kubeconfig does not exist: is `testenv up` running there?";
  try {
    Client admin(admin_config());
    auto response = admin.transport->send(request("GET", "/readyz"));
    if (response.status != 200)
      return "the control plane in " + dir + " is not ready: " +
             (response.status == 0 ? response.transport_error : "HTTP " + std::to_string(response.status));
  } catch (const std::exception& error) {
    return std::string("cannot use the control plane in ") + dir + ": " + error.what();
  }
  return "";
}

std::string testenv_binary() {
  if (std::string bin = environment("OPCTL_TESTENV_BIN"); !bin.empty()) return bin;
  // The first build of the control plane takes minutes.
  auto result = process::run_process({std::string(OPCTL_SOURCE_DIR) + "/tests/testenv/build.sh"},
                                     {.extra_env = {}, .timeout = std::chrono::hours(2), .input = ""});
  if (result.exit_code != 0) throw std::runtime_error("tests/testenv/build.sh failed: " + result.err);
  return trim(result.out);
}

kube::ClusterConfig config_from(const std::string& kubeconfig) {
  kube::ConfigRequest request;
  request.kubeconfig = kubeconfig;
  return kube::load_cluster_config(request);
}

kube::ClusterConfig admin_config() {
  return config_from((fs::path(testenv_dir()) / "kubeconfig").string());
}

Client::Client(const kube::ClusterConfig& cluster, kube::TransportOptions options)
    : config(cluster),
      transport(kube::make_curl_transport(cluster, options)),
      mapper(*transport),
      api(*transport, mapper) {}

kube::ResourceInfo Client::resource(const std::string& api_version, const std::string& kind) {
  auto info = mapper.find(model::GroupVersionKind::from(api_version, kind));
  if (!info) throw std::runtime_error("the server does not serve " + api_version + " " + kind);
  return *info;
}

Json Client::must(const kube::HttpRequest& request) {
  auto result = api.execute(request);
  if (!result.ok())
    throw std::runtime_error(request.method + " " + request.path + ": " + result.status.describe());
  return result.object;
}

Json Client::apply(const Json& object, kube::ApplyOptions options) {
  model::Object wrapped(object);
  return must(api.apply_request(resource(wrapped.api_version(), wrapped.kind()), wrapped, options));
}

std::optional<Json> Client::get(const std::string& api_version, const std::string& kind,
                                const std::string& namespace_name, const std::string& name) {
  auto result = api.execute(api.get_request(resource(api_version, kind), namespace_name, name));
  if (result.status.reason == kube::ApiReason::not_found) return std::nullopt;
  if (!result.ok()) throw std::runtime_error(result.status.describe());
  return result.object;
}

std::string Client::whoami() {
  kube::HttpRequest request;
  request.method = "POST";
  request.path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
  request.content_type = "application/json";
  request.body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
  return must(request)["status"]["userInfo"]["username"];
}

kube::HttpRequest request(const std::string& method, const std::string& path) {
  kube::HttpRequest built;
  built.method = method;
  built.path = path;
  return built;
}

std::string unique_name(const std::string& prefix) {
  std::random_device random;
  return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(g_names++) + "-" +
         std::to_string(random() % 10000);
}

TestNamespace::TestNamespace(Client& admin, const std::string& prefix)
    : admin_(admin), name_(unique_name(prefix)) {
  admin_.apply({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name_}}}});
}

TestNamespace::~TestNamespace() {
  try {
    admin_.api.execute(admin_.api.delete_request(admin_.resource("v1", "Namespace"), "", name_, {}));
  } catch (...) {
    // Best effort: a leftover namespace does not break later runs (names are unique).
  }
}

TestCrd::TestCrd(Client& admin) : admin_(admin), group_(unique_name("crd") + ".opctl.test") {
  Json open_object = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  Json schema = {{"type", "object"}, {"properties", {{"spec", open_object}, {"status", open_object}}}};
  Json version = {{"name", "v1"},
                  {"served", true},
                  {"storage", true},
                  {"subresources", {{"status", Json::object()}}},
                  {"schema", {{"openAPIV3Schema", schema}}}};
  admin_.apply(
      {{"apiVersion", "apiextensions.k8s.io/v1"},
       {"kind", "CustomResourceDefinition"},
       {"metadata", {{"name", "gizmos." + group_}}},
       {"spec",
        {{"group", group_},
         {"scope", "Namespaced"},
         {"names",
          {{"plural", "gizmos"}, {"singular", "gizmo"}, {"kind", "Gizmo"}, {"listKind", "GizmoList"}}},
         {"versions", Json::array({version})}}}});
  bool established = eventually([&] {
    auto crd = admin_.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "gizmos." + group_);
    for (const auto& condition : (*crd)["status"].value("conditions", Json::array()))
      if (condition["type"] == "Established" && condition["status"] == "True") return true;
    return false;
  });
  if (!established) throw std::runtime_error("CRD gizmos." + group_ + " was not Established within a minute");
}

TestCrd::~TestCrd() {
  try {
    admin_.api.execute(admin_.api.delete_request(
        admin_.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition"), "", "gizmos." + group_, {}));
  } catch (...) {
    // Best effort, like TestNamespace.
  }
}

kube::ResourceInfo TestCrd::resource(Client& client) const {
  std::optional<kube::ResourceInfo> info;
  eventually(
      [&] {
        return (info = client.mapper.find({group_, "v1", "Gizmo"})).has_value();
      },
      std::chrono::seconds(30), std::chrono::milliseconds(500));
  if (!info) throw std::runtime_error("discovery does not serve " + api_version() + " Gizmo");
  return *info;
}

Json TestCrd::object(const std::string& namespace_name, const std::string& name, const Json& fields) const {
  Json object = {{"apiVersion", api_version()},
                 {"kind", "Gizmo"},
                 {"metadata", {{"name", name}, {"namespace", namespace_name}}}};
  object.update(fields);
  return object;
}

std::string mint_token(const std::string& namespace_name, const std::string& service_account) {
  auto result = process::run_process({testenv_binary(), "token", "--dir", testenv_dir(), "--namespace",
                                      namespace_name, "--serviceaccount", service_account},
                                     {});
  if (result.exit_code != 0) throw std::runtime_error("testenv token failed: " + result.err);
  return trim(result.out);
}

Json config_map(const std::string& namespace_name, const std::string& name, const Json& data,
                const Json& labels) {
  Json metadata = {{"name", name}, {"namespace", namespace_name}};
  if (!labels.empty()) metadata["labels"] = labels;
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata}, {"data", data}};
}

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                std::chrono::milliseconds interval) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(interval);
  }
}

ScratchDir::ScratchDir() : path(fs::temp_directory_path() / unique_name("opctl-it")) {
  fs::create_directories(path);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path, ignored);
}

std::string ScratchDir::write(const std::string& name, const std::string& text) const {
  fs::path target = path / name;
  fs::create_directories(target.parent_path());
  fs::path temporary = target;
  temporary += ".tmp";
  std::ofstream(temporary, std::ios::binary | std::ios::trunc) << text;
  fs::rename(temporary, target);  // atomic: readers never see half a file
  return target.string();
}

Proxy::Proxy(int port) : fault_file_((scratch_.path / "faults.json").string()) {
  start(port);
}

Proxy::~Proxy() {
  stop();
}

void Proxy::start(int port) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::string binary = testenv_binary();
  std::string listen = "127.0.0.1:" + std::to_string(port);
  std::string log = (scratch_.path / "proxy.log").string();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log_fd >= 0) dup2(log_fd, 2);
    execl(binary.c_str(), binary.c_str(), "proxy", "--dir", testenv_dir().c_str(), "--listen", listen.c_str(),
          "--faults", fault_file_.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string line = read_line(out[0], std::chrono::seconds(30));
  close(out[0]);  // the proxy prints nothing else on stdout
  pid_ = pid;
  auto colon = line.rfind(':');
  if (line.rfind("listening on ", 0) != 0 || colon == std::string::npos) {
    stop();
    throw std::runtime_error("testenv proxy did not start (first line \"" + line + "\"); see " + log);
  }
  port_ = std::stoi(line.substr(colon + 1));
  config_ =
      config_from((fs::path(testenv_dir()) / ("proxy-" + std::to_string(port_) + ".kubeconfig")).string());
}

void Proxy::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

void Proxy::restart() {
  // SIGKILL: connections break at once, as when a load balancer dies.
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  std::error_code ignored;
  fs::remove(fs::path(testenv_dir()) / ("proxy-" + std::to_string(port_) + ".kubeconfig"), ignored);
  start(port_);
}

kube::ClusterConfig Proxy::config() const {
  return config_;
}

void Proxy::faults(const Json& rules) const {
  scratch_.write("faults.json", rules.dump());
}

Json Proxy::counts() const {
  auto response = kube::make_curl_transport(config_, {})->send(request("GET", "/__testenv/requests"));
  return Json::parse(response.body);
}

Json Proxy::reset_counts() const {
  auto response = kube::make_curl_transport(config_, {})->send(request("POST", "/__testenv/requests/reset"));
  return Json::parse(response.body);
}

}  // namespace opctl::integration
