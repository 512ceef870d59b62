#include "source/ssh_signature.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <sstream>

#include "model/error.hpp"
#include "process/child_process.hpp"

namespace opctl::source {

namespace {

constexpr const char* k_namespace = "git";  // what `git commit -S` signs with gpg.format=ssh
constexpr std::chrono::seconds k_ssh_keygen_timeout{30};

process::ProcessResult ssh_keygen(std::vector<std::string> arguments, const std::string& input) {
  arguments.insert(arguments.begin(), "ssh-keygen");
  process::ProcessOptions options;
  options.timeout = k_ssh_keygen_timeout;
  options.input = input;
  auto result = process::run_process(arguments, options);
  if (result.exec_error != 0)
    throw InvalidInputError(
        {Problem{"", 0, "--verify-commits",
                 std::string("ssh-keygen could not be run (") + std::strerror(result.exec_error) +
                     "; it verifies SSH commit signatures: install OpenSSH's client, e.g. apt-get install "
                     "openssh-client)"}});
  return result;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "no reason given" : line;
}

// Good "git" signature ... with ED25519 key SHA256:...: valid, whoever made it.
SignatureVerdict check_signature_alone(const SignedPayload& signed_payload) {
  auto result = ssh_keygen({"-Y", "check-novalidate", "-n", k_namespace, "-s", signed_payload.signature_file},
                           signed_payload.payload);
  SignatureVerdict verdict;
  verdict.key = ssh_key_in(result.out + result.err);
  if (result.exit_code != 0 || result.timed_out)
    verdict.reason = fmt::format("has a bad SSH signature (ssh-keygen: {})", first_line(result.err));
  return verdict;
}

}  // namespace

std::string ssh_key_in(const std::string& ssh_keygen_output) {
  std::istringstream lines(ssh_keygen_output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("Good ")) continue;
    auto with = line.rfind(" with ");
    auto key = line.rfind(" key ");
    if (with == std::string::npos || key == std::string::npos || key < with) continue;
    return line.substr(with + 6, key - with - 6) + " " + line.substr(key + 5);
  }
  return {};
}

std::vector<std::string> principals_in(const std::string& find_principals_output) {
  std::vector<std::string> principals;
  std::istringstream lines(find_principals_output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream names(line);
    for (std::string name; std::getline(names, name, ',');)
      if (!name.empty()) principals.push_back(name);
  }
  return principals;
}

SignatureVerdict verify_ssh_signature(const SignedPayload& signed_payload,
                                      const std::string& allowed_signers_file) {
  SignatureVerdict verdict = check_signature_alone(signed_payload);
  if (!verdict.reason.empty()) return verdict;
  std::string key = verdict.key.empty() ? std::string("an SSH key") : "SSH key " + verdict.key;
  if (allowed_signers_file.empty()) {
    verdict.reason =
        fmt::format("is signed by {}, but no allowed_signers file is given (--verify-allowed-signers)", key);
    return verdict;
  }
  auto found = ssh_keygen(
      {"-Y", "find-principals", "-f", allowed_signers_file, "-s", signed_payload.signature_file}, "");
  auto principals = principals_in(found.exit_code == 0 ? found.out : "");
  std::string last_error = first_line(found.err);
  // Finding a principal only matches the key: the verify below checks the
  // signature, the namespace and the key's validity dates for that principal.
  for (const auto& principal : principals) {
    auto verified = ssh_keygen({"-Y", "verify", "-f", allowed_signers_file, "-I", principal, "-n",
                                k_namespace, "-s", signed_payload.signature_file},
                               signed_payload.payload);
    if (verified.exit_code == 0 && !verified.timed_out) {
      verdict.good = true;
      verdict.principal = principal;
      return verdict;
    }
    last_error = first_line(verified.err);
  }
  if (principals.empty())
    verdict.reason =
        fmt::format("is signed by {}, which is not in allowed_signers {}", key, allowed_signers_file);
  else
    verdict.reason = fmt::format(
        "is signed by {} ({}), which allowed_signers {} does not accept for git commits now "
        "(ssh-keygen: {})",
        key, fmt::join(principals, ", "), allowed_signers_file, last_error);
  return verdict;
}

}  // namespace opctl::source
