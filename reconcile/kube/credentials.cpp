#include "kube/credentials.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "model/error.hpp"

extern char** environ;

namespace opctl::kube {
namespace {

std::string trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

std::chrono::system_clock::time_point parse_rfc3339(const std::string& text) {
  std::tm parts{};
  std::istringstream in(text);
  in >> std::get_time(&parts, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return {};
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `argv` with extra environment variables, stdin closed, reading stdout and stderr.
ProcessResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) throw ClusterError("exec plugin: cannot create pipe");
  pid_t pid = fork();
  if (pid < 0) throw ClusterError("exec plugin: cannot fork");
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    for (const auto& [name, value] : extra_env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  ProcessResult result;
  std::array<char, 4096> buffer;
  // Read stdout fully, then stderr; plugins print little, so no deadlock risk in practice.
  for (auto [fd, into] : {std::pair{out_pipe[0], &result.out}, std::pair{err_pipe[0], &result.err}}) {
    ssize_t count;
    while ((count = read(fd, buffer.data(), buffer.size())) > 0) into->append(buffer.data(), std::size_t(count));
    close(fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace

Credential parse_exec_credential(const std::string& output, const std::string& command,
                                 std::chrono::system_clock::time_point& expiry, bool& has_expiry) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(output);
  } catch (const nlohmann::json::exception&) {
    throw ClusterError(fmt::format("exec plugin {} printed something that is not an ExecCredential JSON", command));
  }
  if (!document.is_object() || document.value("kind", "") != "ExecCredential" || !document.contains("status") ||
      !document["status"].is_object())
    throw ClusterError(fmt::format("exec plugin {} printed no ExecCredential status", command));
  const auto& status = document["status"];
  Credential credential;
  credential.bearer_token = status.value("token", "");
  credential.client_cert_pem = status.value("clientCertificateData", "");
  credential.client_key_pem = status.value("clientKeyData", "");
  if (credential.bearer_token.empty() && credential.client_cert_pem.empty())
    throw ClusterError(fmt::format("exec plugin {} returned neither a token nor a client certificate", command));
  std::string expiration = status.value("expirationTimestamp", "");
  has_expiry = !expiration.empty();
  if (has_expiry) expiry = parse_rfc3339(expiration);
  return credential;
}

Credential CredentialSource::run_exec_plugin() {
  const ExecPlugin& plugin = *cluster_.exec;
  std::string api_version =
      plugin.api_version.empty() ? "client.authentication.k8s.io/v1" : plugin.api_version;
  nlohmann::json info = {{"apiVersion", api_version},
                         {"kind", "ExecCredential"},
                         {"spec", {{"interactive", false}}}};
  auto env = plugin.env;
  env["KUBERNETES_EXEC_INFO"] = info.dump();
  std::vector<std::string> argv{plugin.command};
  argv.insert(argv.end(), plugin.args.begin(), plugin.args.end());
  ProcessResult result = run_process(argv, env);
  if (result.exit_code != 0)
    throw ClusterError(fmt::format("exec plugin {} failed with exit code {}: {}", plugin.command, result.exit_code,
                                   trim(result.err)));
  bool has_expiry = false;
  Credential credential = parse_exec_credential(result.out, plugin.command, exec_expiry_, has_expiry);
  if (!has_expiry) exec_expiry_ = std::chrono::system_clock::time_point::max();
  return credential;
}

Credential CredentialSource::current() {
  Credential credential;
  credential.client_cert_pem = cluster_.client_cert_pem;
  credential.client_key_pem = cluster_.client_key_pem;
  credential.bearer_token = cluster_.token;
  if (!cluster_.token_file.empty()) {
    std::ifstream in(cluster_.token_file);
    if (!in) throw ClusterError(fmt::format("token file {} is unreadable", cluster_.token_file));
    std::ostringstream text;
    text << in.rdbuf();
    credential.bearer_token = trim(text.str());
  }
  if (cluster_.exec) {
    // Renew a little before expiry so a long batch does not run out mid-way.
    if (!exec_cached_ || std::chrono::system_clock::now() + std::chrono::seconds(10) >= exec_expiry_) {
      cached_exec_ = run_exec_plugin();
      exec_cached_ = true;
    }
    if (!cached_exec_.bearer_token.empty()) credential.bearer_token = cached_exec_.bearer_token;
    if (!cached_exec_.client_cert_pem.empty()) {
      credential.client_cert_pem = cached_exec_.client_cert_pem;
      credential.client_key_pem = cached_exec_.client_key_pem;
    }
  }
  return credential;
}

}  // namespace opctl::kube
