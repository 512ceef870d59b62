// Flags shared by the subcommands, and how they combine with opctl.yaml:
// a flag given on the command line wins over the file, the file over defaults.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

#include "apply/prune_limits.hpp"
#include "config/run_config.hpp"
#include "kube/cluster_config.hpp"
#include "kube/http_transport.hpp"
#include "model/label_selector.hpp"
#include "model/prune_limit.hpp"
#include "source/desired_source.hpp"
#include "source/sops_file.hpp"

namespace opctl::cli {

struct CommonOptions {
  std::string config_file;
  source::SourceOptions source;
  std::vector<std::string> sops_age_key_files;  // --sops-age-key-file
  source::SopsOptions sops;                     // filled in by finish_source_options
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;
  // The transport's defaults, so the flags' and the library's never drift apart.
  int concurrency = kube::TransportOptions{}.concurrency;
  config::RequestRate qps;  // --qps auto (adaptive) unless a number is given
  int burst = kube::TransportOptions{}.burst;
  std::string exec_timeout = std::to_string(kube::k_default_exec_timeout_seconds) + "s";
  // --default-postgres-image; empty: opctl.yaml's spec.clusterDefaults.imageName.
  std::string default_postgres_image;
  std::string set_name;    // --name
  bool set_named = false;  // filled in by finish_source_options: --name or metadata.name was given
  bool take_over = false;  // --take-over
  bool force_conflicts = false;
  bool prune = false;
  // Pass settings (reconcile; diff --prune previews with the prune scope).
  bool prune_namespaces = false;  // --prune-namespaces
  bool prune_crds = false;        // --prune-crds
  bool prune_data = false;        // --prune-data
  bool allow_empty = false;       // --allow-empty
  model::PruneLimit max_prune;    // --max-prune
  bool wait = false;              // --wait
  // When the set cannot be loaded, reconcile run its custom resources that exist from their live
  // spec (--no-keep-running turns it off).
  bool keep_running = true;
  std::string timeout = "5m";  // --timeout
  std::string delete_propagation = "Background";
  std::string selector;                 // -l/--selector, as given
  model::LabelSelector label_selector;  // filled in by finish_source_options
  bool selector_refused = false;        // add_refused_selector_flag: -l is an error here
  bool no_color = false;
  bool verbose = false;
  bool quiet = false;
  std::string progress_interval = "10s";  // --progress-interval
  // Filled in by apply_config: the file that was read (or defaults).
  config::RunConfig config;
  // Filled in by load_manifests once it has looked for an opctl.yaml in the source (and applied it):
  // from then on the set's name and namespace are final.
  bool source_config_checked = false;
  CLI::App* command = nullptr;  // to tell which flags were given
};

void add_source_flags(CLI::App& command, CommonOptions& options);
void add_cluster_flags(CLI::App& command, CommonOptions& options);
void add_output_flags(CLI::App& command, CommonOptions& options);
// --progress-interval, for the commands that show progress (reconcile, diff, fetch).
void add_progress_flag(CLI::App& command, CommonOptions& options);
// --prune and --force-conflicts, for the commands that plan changes.
void add_change_flags(CLI::App& command, CommonOptions& options);
// --prune-namespaces, --prune-crds, --delete-propagation, --wait and --timeout, for the command that
// runs a pass (diff binds the prune scope flags itself, with its own help).
void add_pass_flags(CLI::App& command, CommonOptions& options);
// --prune-data, --allow-empty and --max-prune: the guards on what a prune may delete (reconcile and
// diff --prune apply the same ones).
void add_prune_guard_flags(CLI::App& command, CommonOptions& options);
// What those flags (or opctl.yaml) allow.
apply::PruneLimits prune_limits_of(const CommonOptions& options);
// --name, for the commands that work on one set (its Lease and ApplySet parent).
void add_set_flags(CLI::App& command, CommonOptions& options);
// --take-over, for the commands that prune (or preview pruning).
void add_take_over_flag(CLI::App& command, CommonOptions& options);

// --default-postgres-image, for the commands that run or check Clusters and Backups (reconcile, diff,
// validate, backup); install carries opctl.yaml's spec.clusterDefaults into the CronJob instead.
void add_kind_flags(CLI::App& command, CommonOptions& options);

// -l/--selector, for the commands that read the set; `what` says what it selects there.
void add_selector_flag(CLI::App& command, CommonOptions& options, const std::string& what);

// -l/--selector on reconcile: accepted by the parser so that finish_source_options refuses it with
// a message saying why (a pass applies, prunes and records the whole set) and what to use instead.
void add_refused_selector_flag(CLI::App& command, CommonOptions& options);

// --keep-running / --no-keep-running, for the command that runs a pass.
void add_keep_running_flag(CLI::App& command, CommonOptions& options);

// The set's name when neither --name nor metadata.name gives one. Such a set
// may apply but never prune: two unnamed sets would prune each other.
inline constexpr const char* k_unnamed_set = "default";

// Throws InvalidInputError when pruning is asked for a set without a name.
void require_named_set_for_prune(const CommonOptions& options);

// The exec plugin timeout of --exec-timeout (or spec.execTimeout); more than 0.
std::chrono::milliseconds exec_timeout(const CommonOptions& options);

// How long --wait may take in all: --timeout (or spec.timeout); 0 checks once and never waits.
std::chrono::milliseconds pass_timeout(const CommonOptions& options);

// --progress-interval as a duration ("0": no progress shown).
std::chrono::milliseconds progress_interval(const CommonOptions& options);

// After parsing: reads -f (or, without -f, <path>/opctl.yaml for a plain
// directory), fills every flag not given from it, OPCTL_GIT_TOKEN, and the
// age identities SOPS files are decrypted with.
void finish_source_options(CommonOptions& options);

// A config found inside a git source: fills the flags not given (source
// settings are ignored, the source is already chosen). Its verify: block
// cannot turn verification on, off or point it at other trust files (it
// comes from the commit it would vouch for); see require_found_verification.
// From a git repository (--repo), its spec.metrics is refused (see refuse_found_metrics).
void apply_found_config(CommonOptions& options, const config::RunConfig& found);

// Throws InvalidInputError naming file, line and field when a config found
// inside a git source sets spec.metrics: a file path and a credential on the
// machine that runs opctl are not the commit's to choose. Nothing has been
// applied when this runs.
void refuse_found_metrics(const config::RunConfig& found);

// Throws InvalidInputError when a config found inside the source asks for
// signed commits (verify.commits: true) but this run does not verify them:
// such a file can only demand verification, and failing loudly beats the
// protection it seems to promise. Nothing has been applied when this runs.
void require_found_verification(const CommonOptions& options, const config::RunConfig& found);

// True when the flag was given on the command line.
bool flag_given(const CommonOptions& options, const std::string& name);

}  // namespace opctl::cli
