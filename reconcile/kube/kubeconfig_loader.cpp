#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/cluster_config.hpp"
#include "model/base64.hpp"
#include "model/error.hpp"

namespace opctl::kube {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& message) {
  throw Error(ErrorCategory::invalid_input, message);
}

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
    fail(fmt::format("{}:{}: kubeconfig is not valid YAML: {}", path.string(), error.mark.line + 1,
                     error.msg));
  }
  merged.files.push_back(path.string());
  if (root.IsNull()) return;
  if (!root.IsMap()) fail(fmt::format("{}: kubeconfig must be a mapping", path.string()));
  auto take = [&](const char* list_name, const char* item_name, std::map<std::string, Entry>& into) {
    YAML::Node list = root[list_name];
    if (!list || list.IsNull()) return;
    if (!list.IsSequence())
      fail(fmt::format("{}:{}: {} must be a list", path.string(), list.Mark().line + 1, list_name));
    for (const auto& item : list) {
      std::string name = scalar(item, "name");
      if (name.empty())
        fail(
            fmt::format("{}:{}: an entry of {} has no name", path.string(), item.Mark().line + 1, list_name));
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
  return path.is_absolute() ? value : (kubeconfig.parent_path() / path).lexically_normal().string();
}

std::string data_or_file(const Entry& entry, const char* data_key, const char* file_key, const char* what) {
  std::string data = scalar(entry.node, data_key);
  if (!data.empty()) {
    auto decoded = model::base64_decode(data);
    if (!decoded) fail(fmt::format("{}: {} is not valid base64", entry.file.string(), data_key));
    return *decoded;
  }
  std::string file = scalar(entry.node, file_key);
  return file.empty() ? "" : read_file(resolve_path(file, entry.file), what);
}

bool flag(const YAML::Node& node, const char* key, const fs::path& file) {
  if (!node || !node.IsMap() || !node[key]) return false;
  try {
    return node[key].as<bool>();
  } catch (const YAML::Exception&) {
    fail(fmt::format("{}:{}: {} must be true or false", file.string(), node[key].Mark().line + 1, key));
  }
}

std::vector<std::string> exec_args(const YAML::Node& node, const fs::path& file) {
  std::vector<std::string> args;
  if (!node || node.IsNull()) return args;
  if (!node.IsSequence())
    fail(fmt::format("{}:{}: exec args must be a list", file.string(), node.Mark().line + 1));
  for (const auto& arg : node) {
    if (!arg.IsScalar())
      fail(fmt::format("{}:{}: every exec arg must be a string", file.string(), arg.Mark().line + 1));
    args.push_back(arg.as<std::string>());
  }
  return args;
}

std::map<std::string, std::string> exec_env(const YAML::Node& node, const fs::path& file) {
  std::map<std::string, std::string> env;
  if (!node || node.IsNull()) return env;
  if (!node.IsSequence())
    fail(fmt::format("{}:{}: exec env must be a list", file.string(), node.Mark().line + 1));
  for (const auto& variable : node) {
    std::string name = scalar(variable, "name");
    if (name.empty() || name.find('=') != std::string::npos)
      fail(fmt::format("{}:{}: an exec env entry needs a name (without '=')", file.string(),
                       variable.Mark().line + 1));
    env[name] = scalar(variable, "value");
  }
  return env;
}

// client-go's rule: a command with a path separator that is relative is
// relative to the kubeconfig's directory; a bare name is looked up in PATH.
ExecPlugin read_exec(const YAML::Node& node, const fs::path& file) {
  if (!node.IsMap()) fail(fmt::format("{}:{}: exec must be a mapping", file.string(), node.Mark().line + 1));
  ExecPlugin plugin;
  plugin.api_version = scalar(node, "apiVersion");
  plugin.command = scalar(node, "command");
  plugin.interactive_mode = scalar(node, "interactiveMode");
  plugin.install_hint = scalar(node, "installHint");
  plugin.provide_cluster_info = flag(node, "provideClusterInfo", file);
  if (plugin.command.empty()) fail(fmt::format("{}: exec plugin has no command", file.string()));
  if (plugin.command.find('/') != std::string::npos) plugin.command = resolve_path(plugin.command, file);
  plugin.args = exec_args(node["args"], file);
  plugin.env = exec_env(node["env"], file);
  return plugin;
}

ClusterConfig from_kubeconfig(const MergedConfig& merged, const std::string& wanted_context) {
  std::string sources = fmt::format("{}", fmt::join(merged.files, ":"));
  std::string context_name = wanted_context.empty() ? merged.current_context : wanted_context;
  if (context_name.empty()) fail(fmt::format("no current-context set in {} (use --context)", sources));
  auto context = merged.contexts.find(context_name);
  if (context == merged.contexts.end())
    fail(fmt::format("context \"{}\" not found in {}", context_name, sources));
  std::string cluster_name = scalar(context->second.node, "cluster");
  auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end())
    fail(
        fmt::format("cluster \"{}\" of context \"{}\" not found in {}", cluster_name, context_name, sources));

  ClusterConfig config;
  config.context_name = context_name;
  config.source = sources;
  config.namespace_name = scalar(context->second.node, "namespace");
  if (config.namespace_name.empty()) config.namespace_name = "default";
  const Entry& c = cluster->second;
  config.server = scalar(c.node, "server");
  if (config.server.empty())
    fail(fmt::format("cluster \"{}\" in {} has no server", cluster_name, c.file.string()));
  while (config.server.ends_with("/"))
    config.server.pop_back();
  config.ca_pem =
      data_or_file(c, "certificate-authority-data", "certificate-authority", "certificate-authority");
  config.insecure_skip_tls_verify = flag(c.node, "insecure-skip-tls-verify", c.file);
  if (config.insecure_skip_tls_verify && !config.ca_pem.empty())
    fail(
        fmt::format("cluster \"{}\" in {} sets both a certificate authority and insecure-skip-tls-verify; "
                    "remove one (kubectl refuses this too)",
                    cluster_name, c.file.string()));
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
  config.client_cert_pem =
      data_or_file(u, "client-certificate-data", "client-certificate", "client-certificate");
  config.client_key_pem = data_or_file(u, "client-key-data", "client-key", "client-key");
  config.token = scalar(u.node, "token");
  std::string token_file = scalar(u.node, "tokenFile");
  if (!token_file.empty()) config.token_file = resolve_path(token_file, u.file);
  config.username = scalar(u.node, "username");
  config.password = scalar(u.node, "password");
  if (u.node && u.node.IsMap() && u.node["exec"] && !u.node["exec"].IsNull())
    config.exec = read_exec(u.node["exec"], u.file);
  if (config.client_cert_pem.empty() != config.client_key_pem.empty())
    fail(fmt::format(
        "user \"{}\" in {} has a client certificate without a key, or a key without a certificate", user_name,
        u.file.string()));
  return config;
}

ClusterConfig in_cluster(const ConfigRequest& request) {
  fs::path dir = request.service_account_dir.empty() ? fs::path(k_default_service_account_dir)
                                                     : fs::path(request.service_account_dir);
  ClusterConfig config;
  std::string host = request.service_host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  config.server =
      fmt::format("https://{}:{}", host, request.service_port.empty() ? "443" : request.service_port);
  config.token_file = (dir / "token").string();
  read_file(config.token_file, "service account token");
  config.ca_pem = read_file(dir / "ca.crt", "service account CA");
  std::error_code missing;
  config.namespace_name =
      fs::exists(dir / "namespace", missing) ? read_file(dir / "namespace", "namespace") : "default";
  while (!config.namespace_name.empty() &&
         std::isspace(static_cast<unsigned char>(config.namespace_name.back())))
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
  if (request.service_account_dir.empty()) request.service_account_dir = k_default_service_account_dir;
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
  // As in kubectl: a set KUBECONFIG replaces ~/.kube/config, and files it
  // names that do not exist are skipped.
  std::error_code ignored;
  if (!request.kubeconfig_env.empty()) {
    for (const auto& path : split_path_list(request.kubeconfig_env))
      if (fs::exists(path, ignored)) merge_file(path, merged);
  } else if (fs::path home_config = fs::path(request.home) / ".kube" / "config";
             !request.home.empty() && fs::exists(home_config, ignored)) {
    merge_file(home_config, merged);
  }
  if (!merged.files.empty()) return from_kubeconfig(merged, request.context);
  if (!request.service_host.empty()) return in_cluster(request);
  fail(
      fmt::format("no kubeconfig found (tried --kubeconfig, {}) and not running in a cluster "
                  "(KUBERNETES_SERVICE_HOST is unset)",
                  request.kubeconfig_env.empty() ? "KUBECONFIG (unset), ~/.kube/config"
                                                 : "the files in KUBECONFIG=" + request.kubeconfig_env));
}

}  // namespace opctl::kube
