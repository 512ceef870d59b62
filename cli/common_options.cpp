#include "common_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "helm_settings.hpp"
#include "model/error.hpp"

namespace opctl::cli {
namespace {

std::string read_config_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidInputError({Problem{path, 0, "", "cannot read the config file"}});
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

template <typename T, typename U>
void fill(const CommonOptions& options, const std::string& flag, T& target, const std::optional<U>& value) {
  if (value && !flag_given(options, flag)) target = *value;
}

void apply_settings(CommonOptions& options, const config::RunConfig& config, bool include_source) {
  if (include_source) {
    auto& source = options.source;
    fill(options, "--repo", source.repo, config.repo);
    fill(options, "--ref", source.ref, config.ref);
    fill(options, "--path", source.path, config.path);
    fill(options, "--cache-dir", source.cache_dir, config.cache_dir);
    auto& git = source.credentials;
    fill(options, "--git-token-file", git.token_file, config.git.token_file);
    fill(options, "--git-basic-auth-file", git.basic_auth_file, config.git.basic_auth_file);
    fill(options, "--git-ssh-key-file", git.ssh_key_file, config.git.ssh_key_file);
    fill(options, "--git-ssh-passphrase-file", git.ssh_passphrase_file, config.git.ssh_passphrase_file);
    fill(options, "--git-known-hosts-file", git.known_hosts_file, config.git.known_hosts_file);
    fill(options, "--git-insecure-ignore-host-key", git.insecure_ignore_host_key,
         config.git.insecure_ignore_host_key);
    auto& verification = source.verification;
    fill(options, "--verify-commits", verification.enabled, config.verify.commits);
    fill(options, "--verify-allowed-signers", verification.allowed_signers_file,
         config.verify.allowed_signers_file);
    fill(options, "--verify-gpg-keyring", verification.gpg_keyring_file, config.verify.gpg_keyring_file);
  }
  fill(options, "--namespace", options.namespace_name, config.default_namespace);
  fill(options, "--concurrency", options.concurrency, config.concurrency);
  fill(options, "--qps", options.qps, config.qps);
  fill(options, "--burst", options.burst, config.burst);
  fill(options, "--force-conflicts", options.force_conflicts, config.force_conflicts);
  fill(options, "--prune", options.prune, config.prune);
  fill(options, "--prune-namespaces", options.prune_namespaces, config.prune_namespaces);
  fill(options, "--prune-crds", options.prune_crds, config.prune_crds);
  fill(options, "--prune-data", options.prune_data, config.prune_data);
  fill(options, "--allow-empty", options.allow_empty, config.allow_empty);
  fill(options, "--max-prune", options.max_prune, config.max_prune);
  fill(options, "--wait", options.wait, config.wait);
  if (config.keep_running && !flag_given(options, "--keep-running"))
    options.keep_running = *config.keep_running;
  fill(options, "--delete-propagation", options.delete_propagation, config.delete_propagation);
  if (config.exec_timeout && !flag_given(options, "--exec-timeout"))
    options.exec_timeout = config::format_duration(*config.exec_timeout);
  if (config.timeout && !flag_given(options, "--timeout"))
    options.timeout = config::format_duration(*config.timeout);
  options.config = config;
}

// A DNS-1123 label short enough for "opctl-<name>", as the Lease's name must be.
bool valid_set_name(const std::string& name) {
  if (name.empty() || name.size() > 57 || name.front() == '-' || name.back() == '-') return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// --name wins over metadata.name; with neither the set is "default", unnamed.
void resolve_set_name(CommonOptions& options) {
  if (!options.set_name.empty()) {
    if (!valid_set_name(options.set_name))
      throw InvalidInputError(
          {Problem{"", 0, "--name",
                   "must be lowercase letters, digits and '-', start and end with a letter or "
                   "digit, at most 57 characters (it names the Lease opctl-<name>)"}});
    options.config.name = options.set_name;
  }
  options.set_named = !options.config.name.empty();
  if (!options.set_named) options.config.name = k_unnamed_set;
}

// --sops-age-key-file, else SOPS_AGE_KEY_FILE, else the file sops itself
// reads by default. Every file named must be readable: a typo is an error
// here, not a "no identity matched" later.
std::vector<std::string> sops_identity_files(std::vector<std::string> files) {
  namespace fs = std::filesystem;
  if (files.empty()) {
    if (const char* file = std::getenv("SOPS_AGE_KEY_FILE"); file != nullptr && *file != '\0') {
      files.emplace_back(file);
    } else {
      const char* config_home = std::getenv("XDG_CONFIG_HOME");
      const char* home = std::getenv("HOME");
      fs::path base = config_home != nullptr && *config_home != '\0' ? fs::path(config_home)
                      : home != nullptr                              ? fs::path(home) / ".config"
                                                                     : fs::path();
      std::error_code ignored;
      if (!base.empty() && fs::is_regular_file(base / "sops/age/keys.txt", ignored))
        files.push_back((base / "sops/age/keys.txt").string());
      return files;
    }
  }
  for (const auto& file : files)
    if (!std::ifstream(file))
      throw InvalidInputError({Problem{file, 0, "--sops-age-key-file", "cannot read the age identity file"}});
  return files;
}

}  // namespace

void require_found_verification(const CommonOptions& options, const config::RunConfig& found) {
  if (!found.verify.commits.value_or(false) || options.source.verification.enabled) return;
  throw InvalidInputError({Problem{
      found.file, 0, "spec.verify.commits",
      "this opctl.yaml asks for signed commits, but it is inside the source, in the very commit it would "
      "vouch for (a commit that deletes it would go unverified): turn verification on with "
      "--verify-commits or in a -f file outside the source"}});
}

bool flag_given(const CommonOptions& options, const std::string& name) {
  if (options.command == nullptr) return false;
  try {
    return options.command->get_option(name)->count() > 0;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

void add_source_flags(CLI::App& command, CommonOptions& options) {
  options.command = &command;
  auto& source = options.source;
  auto& git = source.credentials;
  command.add_option("-f,--config", options.config_file,
                     "opctl.yaml to read settings from (default: opctl.yaml at the source path)");
  command.add_option("--repo", source.repo,
                     "Git repository URL (https://, ssh://, git@host:repo, file://) or local path");
  command.add_option("--ref", source.ref, "Branch, tag or commit SHA (default: the remote's default branch)");
  command.add_option("--path", source.path,
                     "Sub-directory of the repository; without --repo, the directory (or file) of manifests");
  command.add_option("--cache-dir", source.cache_dir,
                     "Where git clones are cached (default: $XDG_CACHE_HOME/opctl/git)");
  command.add_option("--git-token-file", git.token_file,
                     "File holding an HTTPS token (also: OPCTL_GIT_TOKEN)");
  command.add_option("--git-basic-auth-file", git.basic_auth_file,
                     "File holding username:password for HTTPS");
  command.add_option("--git-ssh-key-file", git.ssh_key_file, "Private key for SSH (default: ssh-agent)");
  command.add_option("--git-ssh-passphrase-file", git.ssh_passphrase_file,
                     "File holding the SSH key's passphrase");
  command.add_option("--git-known-hosts-file", git.known_hosts_file,
                     "known_hosts file to verify SSH host keys (default: ~/.ssh/known_hosts)");
  command.add_flag("--git-insecure-ignore-host-key", git.insecure_ignore_host_key,
                   "Do not verify the SSH host key (unsafe)");
  auto& verification = source.verification;
  command.add_flag(
      "--verify-commits", verification.enabled,
      "Use the commit only if it is signed by a trusted key (exit 2 otherwise, nothing applied)");
  command.add_option("--verify-allowed-signers", verification.allowed_signers_file,
                     "OpenSSH allowed_signers file trusted for SSH-signed commits (checked by ssh-keygen)");
  command.add_option("--verify-gpg-keyring", verification.gpg_keyring_file,
                     "OpenPGP keyring, as gpg exports it, trusted for GPG-signed commits (checked by gpgv)");
  // SOPS decryption.
  command.add_option("--sops-age-key-file", options.sops_age_key_files,
                     "age identity file that decrypts SOPS-encrypted manifests; repeatable (also: "
                     "SOPS_AGE_KEY_FILE; default: ~/.config/sops/age/keys.txt when it exists)");
}

void add_cluster_flags(CLI::App& command, CommonOptions& options) {
  command.add_option(
      "--kubeconfig", options.kubeconfig,
      "Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)");
  command.add_option("--context", options.context,
                     "The kubeconfig context to use (default: current-context)");
  command.add_option("-n,--namespace", options.namespace_name,
                     "Namespace for namespaced objects that name none (default: the context's namespace)");
  command
      .add_option("--concurrency", options.concurrency,
                  "Requests in flight at once (reads: HTTP/1.1 connections; writes: HTTP/2 streams on one)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  command
      .add_option_function<std::string>(
          "--qps", [&options](const std::string& text) { options.qps = *config::parse_request_rate(text); },
          "Client-side rate limit: auto sends as fast as --concurrency allows until the API server answers "
          "429, then adapts to it; a number is a fixed rate in requests per second (0: none)")
      ->check(CLI::Validator(
          [](std::string& text) {
            return config::parse_request_rate(text) ? std::string()
                                                    : "must be auto or a number of requests per second";
          },
          ""))
      ->type_name("auto|N")
      ->default_str("auto");
  command
      .add_option("--burst", options.burst, "Requests allowed above a fixed --qps in a burst (not with auto)")
      ->capture_default_str();
  command
      .add_option("--exec-timeout", options.exec_timeout,
                  "How long a kubeconfig exec credential plugin may run before it is killed (500ms, 30s, 2m; "
                  "more than 0)")
      ->capture_default_str();
}

void add_kind_flags(CLI::App& command, CommonOptions& options) {
  command
      .add_option("--default-postgres-image", options.default_postgres_image,
                  "PostgreSQL image of a Cluster without spec.imageName, built from "
                  "deploy/postgresql.Dockerfile and pushed where the nodes pull from (also: "
                  "spec.clusterDefaults.imageName; default: ghcr.io/opctl/postgresql:15-0.1.0, which no "
                  "public registry serves)")
      ->type_name("IMAGE");
}

void add_change_flags(CLI::App& command, CommonOptions& options) {
  command.add_flag("--prune", options.prune, "Delete objects of this set that are no longer in the source");
  command.add_flag("--force-conflicts", options.force_conflicts,
                   "Take ownership of fields another field manager owns");
}

void add_pass_flags(CLI::App& command, CommonOptions& options) {
  command.add_flag("--prune-namespaces", options.prune_namespaces,
                   "Also prune Namespaces that still hold objects opctl does not manage");
  command.add_flag("--prune-crds", options.prune_crds,
                   "Also prune CustomResourceDefinitions whose custom resources (not in this set) remain");
  command
      .add_option("--delete-propagation", options.delete_propagation,
                  "How pruned objects' dependents are deleted")
      ->check(CLI::IsMember({"Background", "Foreground", "Orphan"}))
      ->capture_default_str();
  command.add_flag("--wait", options.wait,
                   "Wait for each wave to be healthy before the next, and for the last");
  command
      .add_option("--timeout", options.timeout,
                  "How long --wait may take in all, as kubectl spells durations (500ms, 1.5s, 1m30s, 2h); 0: "
                  "check health once and do not wait (exit 5 if not yet healthy)")
      ->capture_default_str();
}

void add_prune_guard_flags(CLI::App& command, CommonOptions& options) {
  command.add_flag("--prune-data", options.prune_data,
                   "Also prune PersistentVolumeClaims and Clusters, which hold data (or annotate one "
                   "opctl.io/prune-data: \"true\")");
  command.add_flag("--allow-empty", options.allow_empty,
                   "Prune even when the source yields no objects (refused by default: a bad merge or a moved "
                   "folder looks like that)");
  command
      .add_option_function<std::string>(
          "--max-prune",
          [&options](const std::string& text) {
            auto limit = model::parse_prune_limit(text);
            if (!limit)
              throw CLI::ValidationError("--max-prune", "must be a count (10) or a percentage (50%)");
            options.max_prune = *limit;
          },
          "The most members of the set one pass may prune: a count (10) or a share (50%, the default; a "
          "share always allows 5)")
      ->type_name("N|P%");
}

apply::PruneLimits prune_limits_of(const CommonOptions& options) {
  return {options.allow_empty, options.max_prune};
}

void add_set_flags(CLI::App& command, CommonOptions& options) {
  command.add_option("--name", options.set_name,
                     "The set's name: its Lease is opctl-NAME and its ApplySet parent the Secret opctl-NAME "
                     "(also: metadata.name in opctl.yaml; pruning needs one)");
}

void add_take_over_flag(CLI::App& command, CommonOptions& options) {
  command.add_flag("--take-over", options.take_over,
                   "Prune even though the set was last written from another source, and record this one");
}

void add_keep_running_flag(CLI::App& command, CommonOptions& options) {
  command.add_flag("--keep-running,!--no-keep-running", options.keep_running,
                   "When the set cannot be loaded (git unreachable, an invalid manifest), still reconcile "
                   "its custom resources that exist (Clusters, Backups) from their live spec, under its "
                   "Lease; the default. --no-keep-running: then nothing runs (also: spec.keepRunning)");
}

void add_selector_flag(CLI::App& command, CommonOptions& options, const std::string& what) {
  command
      .add_option("-l,--selector", options.selector,
                  "Label selector, as kubectl's: " + what +
                      " (key=value, key!=value, 'key in (a,b)', 'key notin (a)', key, !key; comma = and)")
      ->type_name("SELECTOR");
}

void add_refused_selector_flag(CLI::App& command, CommonOptions& options) {
  options.selector_refused = true;
  command
      .add_option("-l,--selector", options.selector,
                  "Not supported: a pass applies, prunes and records the whole set (use diff -l or status -l "
                  "to look at part of it)")
      ->type_name("SELECTOR");
}

void require_named_set_for_prune(const CommonOptions& options) {
  if (!options.prune || options.set_named) return;
  throw InvalidInputError(
      {Problem{"", 0, "--prune",
               "pruning needs a named set, so that two sets never prune each other: give --name "
               "NAME or metadata.name in opctl.yaml"}});
}

std::chrono::milliseconds exec_timeout(const CommonOptions& options) {
  auto parsed = config::parse_duration(options.exec_timeout);
  if (!parsed || parsed->count() <= 0)
    throw InvalidInputError({Problem{
        "", 0, "--exec-timeout",
        fmt::format(
            "'{}': must be a duration above 0 such as 500ms, 30s or 2m (0 would kill the plugin at once)",
            options.exec_timeout)}});
  return *parsed;
}

std::chrono::milliseconds pass_timeout(const CommonOptions& options) {
  auto parsed = config::parse_duration(options.timeout);
  if (!parsed)
    throw InvalidInputError(
        {Problem{"", 0, "--timeout",
                 fmt::format("'{}': must be a duration such as {} (0: check once, do not wait)",
                             options.timeout, config::k_duration_examples)}});
  return *parsed;
}

std::chrono::milliseconds progress_interval(const CommonOptions& options) {
  auto parsed = config::parse_duration(options.progress_interval);
  if (!parsed)
    throw InvalidInputError({Problem{"", 0, "--progress-interval",
                                     fmt::format("'{}': must be a duration such as {} (0: no progress)",
                                                 options.progress_interval, config::k_duration_examples)}});
  return *parsed;
}

void add_progress_flag(CLI::App& command, CommonOptions& options) {
  command
      .add_option("--progress-interval", options.progress_interval,
                  "Progress on stderr: on a terminal one live line; elsewhere a line after each DURATION "
                  "without output during long waits, applies and fetches (0: no progress)")
      ->type_name("DURATION")
      ->capture_default_str();
}

void add_output_flags(CLI::App& command, CommonOptions& options) {
  command.add_flag("--no-color", options.no_color, "Never colour the output (also: NO_COLOR set)");
  command.add_flag("-v,--verbose", options.verbose, "Log each API request (method, path, status) to stderr");
  command.add_flag("-q,--quiet", options.quiet, "Print only errors and the summary");
}

void finish_source_options(CommonOptions& options) {
  std::string file = options.config_file;
  if (file.empty() && options.source.repo.empty() && !options.source.path.empty()) {
    auto candidate = std::filesystem::path(options.source.path) / config::k_config_file_name;
    std::error_code ignored;
    if (std::filesystem::is_regular_file(candidate, ignored)) file = candidate.string();
  }
  if (!file.empty()) apply_settings(options, config::parse_run_config(read_config_text(file), file), true);
  resolve_set_name(options);
  options.label_selector = model::parse_label_selector(options.selector, "--selector");
  if (options.selector_refused && !options.label_selector.empty())
    throw InvalidInputError({Problem{
        "", 0, "--selector",
        "reconcile applies, prunes and records the whole set: a pass over part of it would record that "
        "part as the set's inventory and history at this commit, and a later prune could not tell members "
        "left out from members deleted from git. Look at part of the set with opctl diff -l or opctl "
        "status -l; apply part of it as a set of its own (--name, --path)"}});
  if (options.source.repo.empty() && options.source.path.empty())
    throw InvalidInputError(
        {Problem{"", 0, "--path", "either --repo or --path is required (or set them in opctl.yaml)"}});
  if (const char* token = std::getenv("OPCTL_GIT_TOKEN"); token != nullptr)
    options.source.credentials.token = token;
  options.sops.files = sops_identity_files(options.sops_age_key_files);
  bool quiet = options.quiet, verbose = options.verbose;
  options.source.on_warning = [quiet](const std::string& message) {
    if (!quiet) std::cerr << "warning: " << message << "\n";
  };
  options.source.on_progress = [verbose](const std::string& message) {
    if (verbose) std::cerr << "opctl: " << message << "\n";
  };
  // Every command that reads the source (validate and install too) renders the helm: entries of its
  // opctl.yaml.
  options.source.helm_settings_of = [&options](const std::vector<source::ManifestFile>& files) {
    return helm_settings_of(options, files);
  };
}

void refuse_found_metrics(const config::RunConfig& found) {
  const auto& metrics = found.metrics;
  std::vector<Problem> problems;
  const std::string why =
      "an opctl.yaml inside a git source cannot say where metrics go (the commit would choose a path to "
      "write on the machine that runs opctl, or a URL to send a credential to): put spec.metrics in a -f "
      "file, or give --metrics-file / --metrics-push";
  if (metrics.file) problems.push_back({found.file, metrics.file_line, "spec.metrics.file", why});
  if (metrics.push) problems.push_back({found.file, metrics.push->line, "spec.metrics.push", why});
  if (!problems.empty()) throw InvalidInputError(std::move(problems));
}

void apply_found_config(CommonOptions& options, const config::RunConfig& found) {
  require_found_verification(options, found);
  if (!options.config.file.empty()) return;                       // -f or the directory's file wins
  if (!options.source.repo.empty()) refuse_found_metrics(found);  // a plain directory's is the user's
  apply_settings(options, found, false);
  resolve_set_name(options);
}

}  // namespace opctl::cli
