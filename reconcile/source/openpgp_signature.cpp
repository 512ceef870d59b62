#include "source/openpgp_signature.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <vector>

#include "model/error.hpp"
#include "process/child_process.hpp"

namespace opctl::source {

namespace {

constexpr std::chrono::seconds k_gpg_timeout{30};  // gpg verifying one signature

// "[GNUPG:] KEYWORD arg..." lines by keyword, each as its words after the keyword.
std::multimap<std::string, std::vector<std::string>> status_lines(const std::string& status) {
  std::multimap<std::string, std::vector<std::string>> out;
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string prefix, keyword;
    if (!(words >> prefix >> keyword) || prefix != "[GNUPG:]") continue;
    std::vector<std::string> arguments;
    for (std::string word; words >> word;)
      arguments.push_back(word);
    out.emplace(keyword, std::move(arguments));
  }
  return out;
}

std::string argument(const std::vector<std::string>& arguments, std::size_t index) {
  return index < arguments.size() && arguments[index] != "-" ? arguments[index] : std::string();
}

// The user id: every word after the key id.
std::string user_id(const std::vector<std::string>& arguments) {
  std::string out;
  for (std::size_t i = 1; i < arguments.size(); ++i)
    out += (out.empty() ? "" : " ") + arguments[i];
  return out;
}

std::string key_phrase(const std::string& key, const std::string& who) {
  std::string phrase = key.empty() ? std::string("an OpenPGP key") : "OpenPGP key " + key;
  return who.empty() ? phrase : phrase + " (" + who + ")";
}

}  // namespace

SignatureVerdict read_gpgv_status(const std::string& status, int exit_code, const std::string& keyring_file) {
  auto lines = status_lines(status);
  auto first = [&](const std::string& keyword) -> const std::vector<std::string>* {
    auto found = lines.find(keyword);
    return found == lines.end() ? nullptr : &found->second;
  };
  SignatureVerdict verdict;
  if (const auto* valid = first("VALIDSIG")) {
    verdict.key = argument(*valid, 9);  // the primary key's fingerprint
    if (verdict.key.empty()) verdict.key = argument(*valid, 0);
  }
  if (const auto* good = first("GOODSIG")) verdict.principal = user_id(*good);

  for (const char* refused : {"BADSIG", "EXPKEYSIG", "REVKEYSIG", "EXPSIG"}) {
    const auto* found = first(refused);
    if (found == nullptr) continue;
    if (verdict.key.empty()) verdict.key = argument(*found, 0);
    if (verdict.principal.empty()) verdict.principal = user_id(*found);
    std::string key = key_phrase(verdict.key, verdict.principal);
    std::string kind = refused;
    verdict.reason = kind == "BADSIG"
                         ? fmt::format("has a bad OpenPGP signature ({}): it does not match the commit", key)
                     : kind == "EXPKEYSIG" ? fmt::format("is signed by {}, which has expired", key)
                     : kind == "REVKEYSIG" ? fmt::format("is signed by {}, which is revoked", key)
                                           : fmt::format("has an expired OpenPGP signature ({})", key);
    return verdict;
  }
  if (const auto* error = first("ERRSIG")) {
    verdict.key = argument(*error, 6);  // the fingerprint, when the signature names it
    if (verdict.key.empty()) verdict.key = argument(*error, 0);
    verdict.reason = first("NO_PUBKEY") != nullptr
                         ? fmt::format("is signed by {}, which is not in the keyring {}",
                                       key_phrase(verdict.key, ""), keyring_file)
                         : fmt::format("has an OpenPGP signature by {} that gpgv cannot check",
                                       key_phrase(verdict.key, ""));
    return verdict;
  }
  verdict.good = exit_code == 0 && first("GOODSIG") != nullptr && first("VALIDSIG") != nullptr;
  if (!verdict.good)
    verdict.reason =
        fmt::format("has an OpenPGP signature that gpgv does not accept (exit code {})", exit_code);
  return verdict;
}

SignatureVerdict verify_openpgp_signature(const SignedPayload& signed_payload,
                                          const std::string& keyring_file) {
  if (keyring_file.empty()) {
    SignatureVerdict verdict;
    verdict.reason = "is signed with OpenPGP, but no keyring is given (--verify-gpg-keyring)";
    return verdict;
  }
  // gpgv takes a keyring name without a slash as a file in its home: always give a path.
  std::error_code error;
  std::string keyring = std::filesystem::absolute(keyring_file, error).string();
  process::ProcessOptions options;
  options.timeout = k_gpg_timeout;
  options.input = signed_payload.payload;
  // A private, empty home: no user's ~/.gnupg, no trustedkeys.kbx, only the keyring given.
  auto result = process::run_process({"gpgv", "--homedir", signed_payload.scratch_dir, "--status-fd", "1",
                                      "--keyring", keyring, signed_payload.signature_file, "-"},
                                     options);
  if (result.exec_error != 0)
    throw InvalidInputError(
        {Problem{"", 0, "--verify-commits",
                 std::string("gpgv could not be run (") + std::strerror(result.exec_error) +
                     "; it verifies OpenPGP commit signatures: install GnuPG's gpgv, e.g. "
                     "apt-get install gpgv)"}});
  if (result.timed_out) {
    SignatureVerdict verdict;
    verdict.reason = "has an OpenPGP signature gpgv did not finish checking";
    return verdict;
  }
  return read_gpgv_status(result.out, result.exit_code, keyring_file);
}

}  // namespace opctl::source
