#include "kube/credentials.hpp"

#include <fmt/format.h>

#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/base64.hpp"
#include "model/error.hpp"
#include "process/child_process.hpp"

namespace opctl::kube {
namespace {

std::string trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  return text;
}

// "; its stderr ended with: ..." (the last lines), or "" when it printed nothing there.
std::string stderr_tail(const std::string& err) {
  std::string text = trim(err);
  if (text.empty()) return "";
  constexpr std::size_t k_tail = 400;
  if (text.size() > k_tail) text = "..." + text.substr(text.size() - k_tail);
  return "; its stderr ended with: " + text;
}

int digits(const std::string& text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// Seconds east of UTC from "Z", "+hh:mm" or "-hh:mm" at `at`; nullopt when malformed.
std::optional<long> zone_offset(const std::string& text, std::size_t at) {
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z') && at + 1 == text.size()) return 0;
  if (at + 6 != text.size() || (text[at] != '+' && text[at] != '-') || text[at + 3] != ':')
    return std::nullopt;
  int hours = digits(text, at + 1, 2), minutes = digits(text, at + 4, 2);
  if (hours < 0 || minutes < 0) return std::nullopt;
  long offset = hours * 3600L + minutes * 60L;
  return text[at] == '-' ? -offset : offset;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text) {
  std::tm parts{};
  parts.tm_year = digits(text, 0, 4) - 1900;
  parts.tm_mon = digits(text, 5, 2) - 1;
  parts.tm_mday = digits(text, 8, 2);
  parts.tm_hour = digits(text, 11, 2);
  parts.tm_min = digits(text, 14, 2);
  parts.tm_sec = digits(text, 17, 2);
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') ||
      text[13] != ':' || text[16] != ':' || parts.tm_year < 0 || parts.tm_mon < 0 || parts.tm_mday < 1 ||
      parts.tm_hour < 0 || parts.tm_min < 0 || parts.tm_sec < 0)
    return std::nullopt;
  std::size_t at = 19;
  if (text[at] == '.')
    while (++at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
    }
  auto offset = zone_offset(text, at);
  if (!offset) return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&parts) - *offset);
}

Credential parse_exec_credential(const std::string& output, const std::string& command,
                                 std::chrono::system_clock::time_point& expiry, bool& has_expiry) {
  nlohmann::json document = nlohmann::json::parse(output, nullptr, false);
  if (document.is_discarded())
    throw ClusterError(
        fmt::format("exec plugin {} printed something that is not an ExecCredential JSON", command));
  if (!document.is_object() || document.value("kind", "") != "ExecCredential" ||
      !document.contains("status") || !document["status"].is_object())
    throw ClusterError(fmt::format("exec plugin {} printed no ExecCredential status", command));
  const auto& status = document["status"];
  auto text = [&](const char* key) {
    return status.contains(key) && status[key].is_string() ? status[key].get<std::string>() : "";
  };
  Credential credential;
  credential.bearer_token = text("token");
  credential.client_cert_pem = text("clientCertificateData");
  credential.client_key_pem = text("clientKeyData");
  if (credential.bearer_token.empty() && credential.client_cert_pem.empty())
    throw ClusterError(
        fmt::format("exec plugin {} returned neither a token nor a client certificate", command));
  if (credential.client_cert_pem.empty() != credential.client_key_pem.empty())
    throw ClusterError(
        fmt::format("exec plugin {} returned a client certificate without a key, or a key without "
                    "a certificate",
                    command));
  std::string expiration = text("expirationTimestamp");
  has_expiry = !expiration.empty();
  if (has_expiry) {
    auto parsed = parse_rfc3339(expiration);
    if (!parsed)
      throw ClusterError(
          fmt::format("exec plugin {} returned an expirationTimestamp that is not RFC 3339: \"{}\"", command,
                      expiration));
    expiry = *parsed;
  }
  return credential;
}

std::string exec_info(const ClusterConfig& cluster) {
  const ExecPlugin& plugin = *cluster.exec;
  std::string api_version =
      plugin.api_version.empty() ? "client.authentication.k8s.io/v1" : plugin.api_version;
  nlohmann::json spec = {{"interactive", false}};
  if (plugin.provide_cluster_info) {
    nlohmann::json info = {{"server", cluster.server}};
    if (!cluster.tls_server_name.empty()) info["tls-server-name"] = cluster.tls_server_name;
    if (cluster.insecure_skip_tls_verify) info["insecure-skip-tls-verify"] = true;
    if (!cluster.ca_pem.empty()) info["certificate-authority-data"] = model::base64_encode(cluster.ca_pem);
    if (!cluster.proxy_url.empty()) info["proxy-url"] = cluster.proxy_url;
    spec["cluster"] = info;
  }
  return nlohmann::json{{"apiVersion", api_version}, {"kind", "ExecCredential"}, {"spec", spec}}.dump();
}

Credential CredentialSource::run_exec_plugin() {
  const ExecPlugin& plugin = *cluster_.exec;
  if (plugin.interactive_mode == "Always")
    throw ClusterError(
        fmt::format("exec plugin {} needs an interactive terminal (interactiveMode: Always), and "
                    "opctl never runs one interactively",
                    plugin.command));
  auto env = plugin.env;
  env["KUBERNETES_EXEC_INFO"] = exec_info(cluster_);
  std::vector<std::string> argv{plugin.command};
  argv.insert(argv.end(), plugin.args.begin(), plugin.args.end());
  process::ProcessResult result =
      process::run_process(argv, {.extra_env = env, .timeout = plugin.timeout, .input = ""});
  if (result.timed_out)
    throw ClusterError(fmt::format(
        "exec plugin {} did not finish within {} and was killed (--exec-timeout){}", plugin.command,
        plugin.timeout.count() % 1000 == 0 ? fmt::format("{}s", plugin.timeout.count() / 1000)
                                           : fmt::format("{}ms", plugin.timeout.count()),
        stderr_tail(result.err)));
  if (result.exec_error != 0)
    throw ClusterError(fmt::format("exec plugin {} could not be run ({}){}", plugin.command,
                                   std::strerror(result.exec_error),
                                   plugin.install_hint.empty() ? "" : ": " + trim(plugin.install_hint)));
  if (result.exit_code != 0)
    throw ClusterError(fmt::format("exec plugin {} failed with exit code {}: {}", plugin.command,
                                   result.exit_code, trim(result.err)));
  if (trim(result.out).empty())
    throw ClusterError(
        fmt::format("exec plugin {} exited 0 but printed nothing on stdout (an ExecCredential "
                    "JSON was expected){}",
                    plugin.command, stderr_tail(result.err)));
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
    auto now = std::chrono::system_clock::now();
    bool expiring = exec_expiry_ != std::chrono::system_clock::time_point::max() &&
                    now + k_exec_renew_margin >= exec_expiry_;
    if (!exec_cached_ || expiring) {
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
