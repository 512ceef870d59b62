#include "install/install_options.hpp"

#include <cctype>

#include "kinds/cron/cron_schedule.hpp"
#include "model/redaction.hpp"

namespace opctl::install {
namespace {

bool is_lower_alnum(char letter) {
  return std::islower(static_cast<unsigned char>(letter)) || std::isdigit(static_cast<unsigned char>(letter));
}

// RFC 1123: lower-case letters, digits and `extra`, starting and ending alphanumeric.
bool is_dns_name(const std::string& name, std::size_t max_length, const std::string& extra) {
  if (name.empty() || name.size() > max_length) return false;
  if (!is_lower_alnum(name.front()) || !is_lower_alnum(name.back())) return false;
  for (char letter : name)
    if (!is_lower_alnum(letter) && extra.find(letter) == std::string::npos) return false;
  return true;
}

bool is_dns_label(const std::string& name) {
  return is_dns_name(name, 63, "-");
}
bool is_dns_subdomain(const std::string& name) {
  return is_dns_name(name, 253, "-.");
}

}  // namespace

std::vector<Problem> option_problems(const InstallOptions& options) {
  std::vector<Problem> problems;
  if (!is_dns_label(options.namespace_name))
    problems.push_back(
        {"", 0, "--namespace", "\"" + options.namespace_name + "\" is not a valid namespace name"});
  if (!options.git_secret.empty() && !is_dns_subdomain(options.git_secret))
    problems.push_back({"", 0, "--git-secret", "\"" + options.git_secret + "\" is not a valid Secret name"});
  if (!options.verify_secret.empty() && !is_dns_subdomain(options.verify_secret))
    problems.push_back(
        {"", 0, "--verify-secret", "\"" + options.verify_secret + "\" is not a valid Secret name"});
  bool verifies = options.verify_commits && (options.verify_ssh || options.verify_gpg);
  if (!options.verify_secret.empty() && !verifies)
    problems.push_back(
        {"", 0, "--verify-secret",
         "needs --verify-commits with --verify-allowed-signers and/or --verify-gpg-keyring: the "
         "files this install verifies with name which keys of the Secret the runs use"});
  if (verifies && options.verify_secret.empty())
    problems.push_back({"", 0, "--verify-commits",
                        "the CronJob's runs would not verify: give --verify-secret NAME, a Secret holding "
                        "allowed_signers and/or keyring.gpg"});
  if (!options.notify_secret.empty() && !is_dns_subdomain(options.notify_secret))
    problems.push_back(
        {"", 0, "--notify-secret", "\"" + options.notify_secret + "\" is not a valid Secret name"});
  if (!options.metrics_push_auth_secret.empty() && !is_dns_subdomain(options.metrics_push_auth_secret))
    problems.push_back({"", 0, "--metrics-push-auth-secret",
                        "\"" + options.metrics_push_auth_secret + "\" is not a valid Secret name"});
  const std::string& push = options.metrics_push_url;
  if (!push.empty() && !push.starts_with("http://") && !push.starts_with("https://"))
    problems.push_back({"", 0, "--metrics-push", "must be an http:// or https:// URL"});
  if (model::url_has_credentials(push))
    problems.push_back(
        {"", 0, "--metrics-push",
         "\"" + model::redact_credentials(push) +
             "\" carries credentials in the URL, which would be stored in clear in the CronJob: "
             "put the Authorization header's value in a Secret and pass "
             "--metrics-push-auth-secret NAME"});
  if (!options.sops_age_secret.empty() && !is_dns_subdomain(options.sops_age_secret))
    problems.push_back(
        {"", 0, "--sops-age-secret", "\"" + options.sops_age_secret + "\" is not a valid Secret name"});
  if (model::url_has_credentials(options.repo))
    problems.push_back(
        {"", 0, "--repo",
         "\"" + model::redact_credentials(options.repo) +
             "\" carries credentials in the URL, which would be stored in clear in the CronJob: "
             "remove them, put them in a Secret and pass --git-secret NAME"});
  if (options.image.empty()) problems.push_back({"", 0, "--image", "must name an image"});
  try {
    kinds::cron::CronSchedule::parse(options.schedule);
  } catch (const Error& error) {
    problems.push_back({"", 0, "--schedule", error.what()});
  }
  return problems;
}

}  // namespace opctl::install
