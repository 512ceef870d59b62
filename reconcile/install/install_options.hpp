// What `opctl install` is asked for: where opctl runs, how often, with which
// image, source and credentials. The defaults are the documented ones.
#pragma once

#include <string>
#include <vector>

#include "model/error.hpp"

namespace opctl::install {

struct InstallOptions {
  std::string namespace_name = "opctl-system";  // where the CronJob, its account and config live
  std::string config_name = "default";          // opctl.yaml metadata.name: names every object opctl-<name>
  std::string config_text;                      // the opctl.yaml the CronJob reads (from the ConfigMap)
  std::string image;                            // e.g. ghcr.io/opctl/opctl:0.1.0
  std::string schedule = "*/5 * * * *";
  bool cluster_admin = false;  // bind cluster-admin instead of the computed rules
  // The source the CronJob fetches; empty fields are left to opctl.yaml.
  std::string repo, ref, path;
  std::string set_name;  // --name, passed on to the runs (else opctl.yaml's metadata.name names the set)
  // A Secret (by name; never its content) with git credentials: keys `token`
  // for HTTPS, or `ssh-privatekey` and `known_hosts` for SSH.
  std::string git_secret;
  // A Secret (by name) whose key `age.agekey` holds the age identity that
  // decrypts the source's SOPS files; mounted read-only, never read through the API.
  std::string sops_age_secret;
  // Commit verification in the runs: the trust files come from a Secret (by
  // name) with keys `allowed_signers` (SSH) and/or `keyring.gpg` (OpenPGP),
  // whichever this install verifies with itself.
  bool verify_commits = false;
  bool verify_ssh = false, verify_gpg = false;
  std::string verify_secret;
  // A Secret (by name) holding the notifications' credentials (opctl.yaml's
  // tokenFile and urlFile point into k_notify_dir); every key is a file.
  std::string notify_secret;
  // Where the runs push their metrics (--metrics-push of each run), and a
  // Secret (by name) whose key `authorization` holds the Authorization
  // header's value, mounted into k_metrics_push_dir; either may be empty
  // (opctl.yaml's spec.metrics.push, in the ConfigMap, may name the URL).
  std::string metrics_push_url;
  std::string metrics_push_auth_secret;
};

// The paths inside the CronJob's container.
inline constexpr const char* k_config_dir = "/etc/opctl/config";
inline constexpr const char* k_git_dir = "/etc/opctl/git";
inline constexpr const char* k_sops_age_dir = "/etc/opctl/sops-age";
inline constexpr const char* k_sops_age_key = "age.agekey";
inline constexpr const char* k_verify_dir = "/etc/opctl/verify";
inline constexpr const char* k_allowed_signers_key = "allowed_signers";
inline constexpr const char* k_gpg_keyring_key = "keyring.gpg";
inline constexpr const char* k_notify_dir = "/etc/opctl/notify";
inline constexpr const char* k_metrics_push_dir = "/etc/opctl/metrics-push";
inline constexpr const char* k_metrics_push_auth_key = "authorization";
inline constexpr const char* k_cache_dir = "/var/cache/opctl";

// opctl.yaml for a set that has none: names the Lease and ApplySet parent
// opctl-<name> and keeps them in the install namespace.
std::string minimal_config_text(const std::string& config_name, const std::string& namespace_name);

// What is wrong with the options (a cron schedule the CronJob would reject,
// names Kubernetes would refuse), each naming its flag.
std::vector<Problem> option_problems(const InstallOptions& options);

}  // namespace opctl::install
