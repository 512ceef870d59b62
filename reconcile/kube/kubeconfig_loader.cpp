#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/cluster_config.hpp"
#include "kube/base64.hpp"
#include "model/error.hpp"

namespace opctl::kube {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorCategory::invalid_input, message); }

std::string read_file(const fs::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(fmt::format("{} file {} is unreadable", what, path.string()));
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// One named entry (cluster, user or context) and the file it came from, so
// relative paths resolve against that file's directory.
struct Entry {
  YAML::Node node;
  fs::path file;
};

struct MergedConfig {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  std::vector<std::string> files;
};

std::string scalar(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap() || !node[key] || !node[key].IsScalar()) return "";
  return node[key].as<std::string>();
}

// kubectl's merge rule: the first file to define a name wins, and the first
// current-context set wins.
void merge_file(const fs::path& path, MergedConfig& merged) {
  std::string text = read_file(path, "kubeconfig");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    fail(fmt::format("{}:{}: kubeconfig is not valid YAML: {}", path.string(), error.mark.line + 1, error.msg));
  }
  merged.files.push_back(path.string());
  if (root.IsNull()) return;
  if (!root.IsMap()) fail(fmt::format("{}: kubeconfig must be a mapping", path.string()));
  auto take = [&](const char* list_name, const char* item_name, std::map<std::string, Entry>& into) {
    YAML::Node list = root[list_name];
    if (!list || list.IsNull()) return;
    if (!list.IsSequence()) fail(fmt::format("{}:{}: {} must be a list", path.string(), list.Mark().line + 1, list_name));
    for (const auto& item : list) {
      std::string name = scalar(item, "name");
      if (name.empty())
        fail(fmt::format("{}:{}: an entry of {} has no name", path.string(), item.Mark().line + 1, list_name));
      into.try_emplace(name, Entry{item[item_name], path});
    }
  };
  take("clusters", "cluster", merged.clusters);
  take("users", "user", merged.users);
  take("contexts", "context", merged.contexts);
  if (merged.current_context.empty()) merged.current_context = scalar(root, "current-context");
}

std::string resolve_path(const std::string& value, const fs::path& kubeconfig) {
  fs::path path(value);
  return path.is_absolute() ? value : (kubeconfig.parent_path() / path).string();
}

std::string data_or_file(const Entry& entry, const char* data_key, const char* file_key, const char* what) {
  std::string data = scalar(entry.node, data_key);
  if (!data.empty()) {
    auto decoded = base64_decode(data);
    if (!decoded) fail(fmt::format("{}: {} is not valid base64", entry.file.string(), data_key));
    return *decoded;
  }
  std::string file = scalar(entry.node, file_key);
  return file.empty() ? "" : read_file(resolve_path(file, entry.file), what);
}

ExecPlugin read_exec(const YAML::Node& node, const fs::path& file) {
  ExecPlugin plugin;
  plugin.api_version = scalar(node, "apiVersion");
  plugin.command = scalar(node, "command");
  plugin.interactive_mode = scalar(node, "interactiveMode");
  if (plugin.command.empty()) fail(fmt::format("{}: exec plugin has no command", file.string()));
  if (node["args"])
    for (const auto& arg : node["args"]) plugin.args.push_back(arg.as<std::string>());
  if (node["env"])
    for (const auto& variable : node["env"]) plugin.env[scalar(variable, "name")] = scalar(variable, "value");
  return plugin;
}

ClusterConfig from_kubeconfig(const MergedConfig& merged, const std::string& wanted_context) {
  std::string sources = fmt::format("{}", fmt::join(merged.files, ":"));
  std::string context_name = wanted_context.empty() ? merged.current_context : wanted_context;
  if (context_name.empty()) fail(fmt::format("no current-context set in {} (use --context)", sources));
  auto context = merged.contexts.find(context_name);
  if (context == merged.contexts.end()) fail(fmt::format("context \"{}\" not found in {}", context_name, sources));
  std::string cluster_name = scalar(context->second.node, "cluster");
  auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end())
    fail(fmt::format("cluster \"{}\" of context \"{}\" not found in {}", cluster_name, context_name, sources));

  ClusterConfig config;
  config.context_name = context_name;
  config.source = sources;
  config.namespace_name = scalar(context->second.node, "namespace");
  if (config.namespace_name.empty()) config.namespace_name = "default";
  const Entry& c = cluster->second;
  config.server = scalar(c.node, "server");
  if (config.server.empty()) fail(fmt::format("cluster \"{}\" in {} has no server", cluster_name, c.file.string()));
  while (config.server.ends_with("/")) config.server.pop_back();
  config.ca_pem = data_or_file(c, "certificate-authority-data", "certificate-authority", "certificate-authority");
  config.insecure_skip_tls_verify = scalar(c.node, "insecure-skip-tls-verify") == "true";
  config.tls_server_name = scalar(c.node, "tls-server-name");
  config.proxy_url = scalar(c.node, "proxy-url");

  std::string user_name = scalar(context->second.node, "user");
  auto user = merged.users.find(user_name);
  if (user == merged.users.end()) {
    if (!user_name.empty())
      fail(fmt::format("user \"{}\" of context \"{}\" not found in {}", user_name, context_name, sources));
    return config;
  }
  const Entry& u = user->second;
  config.client_cert_pem = data_or_file(u, "client-certificate-data", "client-certificate", "client-certificate");
  config.client_key_pem = data_or_file(u, "client-key-data", "client-key", "client-key");
  config.token = scalar(u.node, "token");
  std::string token_file = scalar(u.node, "tokenFile");
  if (!token_file.empty()) config.token_file = resolve_path(token_file, u.file);
  config.username = scalar(u.node, "username");
  config.password = scalar(u.node, "password");
  if (u.node && u.node["exec"] && u.node["exec"].IsMap()) config.exec = read_exec(u.node["exec"], u.file);
  if (config.client_cert_pem.empty() != config.client_key_pem.empty())
    fail(fmt::format("user \"{}\" in {} has a client certificate without a key, or a key without a certificate",
                     user_name, u.file.string()));
  return config;
}

ClusterConfig in_cluster(const ConfigRequest& request) {
  fs::path dir = request.service_account_dir;
  ClusterConfig config;
  std::string host = request.service_host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  config.server = fmt::format("https://{}:{}", host, request.service_port.empty() ? "443" : request.service_port);
  config.token_file = (dir / "token").string();
  read_file(config.token_file, "service account token");
  config.ca_pem = read_file(dir / "ca.crt", "service account CA");
  std::error_code missing;
  config.namespace_name = fs::exists(dir / "namespace", missing) ? read_file(dir / "namespace", "namespace") : "default";
  while (!config.namespace_name.empty() && std::isspace(static_cast<unsigned char>(config.namespace_name.back())))
    config.namespace_name.pop_back();
  config.context_name = "in-cluster";
  config.source = "in-cluster service account (" + dir.string() + ")";
  return config;
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> parts;
  std::stringstream stream(list);
  std::string part;
  while (std::getline(stream, part, ':'))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

}  // namespace

ConfigRequest config_request_from_environment(std::string kubeconfig, std::string context) {
  auto env = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  ConfigRequest request;
  request.kubeconfig = std::move(kubeconfig);
  request.context = std::move(context);
  request.kubeconfig_env = env("KUBECONFIG");
  request.home = env("HOME");
  request.service_account_dir = env("OPCTL_SERVICEACCOUNT_DIR");
  if (request.service_account_dir.empty())
    request.service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  request.service_host = env("KUBERNETES_SERVICE_HOST");
  request.service_port = env("KUBERNETES_SERVICE_PORT");
  return request;
}

ClusterConfig load_cluster_config(const ConfigRequest& request) {
  MergedConfig merged;
  if (!request.kubeconfig.empty()) {
    merge_file(request.kubeconfig, merged);
    return from_kubeconfig(merged, request.context);
  }
  if (!request.kubeconfig_env.empty()) {
    std::error_code ignored;
    for (const auto& path : split_path_list(request.kubeconfig_env))
      if (fs::exists(path, ignored)) merge_file(path, merged);
    if (!merged.files.empty()) return from_kubeconfig(merged, request.context);
  }
  fs::path home_config = fs::path(request.home) / ".kube" / "config";
  std::error_code ignored;
  if (!request.home.empty() && fs::exists(home_config, ignored)) {
    merge_file(home_config, merged);
    return from_kubeconfig(merged, request.context);
  }
  if (!request.service_host.empty()) return in_cluster(request);
  fail("no kubeconfig found (tried --kubeconfig, KUBECONFIG, ~/.kube/config) and not running in a cluster "
       "(KUBERNETES_SERVICE_HOST is unset)");
}

}  // namespace opctl::kube
