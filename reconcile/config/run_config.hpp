// opctl.yaml: a Kubernetes-style object (apiVersion opctl.io/v1alpha1, kind
// Config) holding every setting a flag can give. Parsed strictly: an unknown
// field is an error with its file and line, so a typo never goes unnoticed.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "model/prune_limit.hpp"

namespace opctl::config {

inline constexpr const char* k_config_api_version = "opctl.io/v1alpha1";
inline constexpr const char* k_config_kind = "Config";
inline constexpr const char* k_config_file_name = "opctl.yaml";

struct IgnoreDifference {
  std::string group;  // "*" matches any
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::vector<std::string> json_pointers;
};

struct HealthOverride {
  std::string group;
  std::string kind;
  bool skip = false;  // never wait for this kind
};

// A kind of child a hook kind creates (listed by the owner-uid label each pass).
struct HookChildKind {
  std::string api_version;
  std::string kind;
};

// A custom kind served by a hook command (Metacontroller's composite contract).
struct HookKind {
  std::string api_version;
  std::string kind;
  std::vector<std::string> command;
  std::string url;
  std::chrono::milliseconds timeout{30'000};
  std::vector<HookChildKind> children;
  bool finalize = false;  // add a finalizer and call the hook with finalizing: true until it says finalized
};

// A Helm chart to render (spec.helm): paths relative to the source's path.
struct HelmChart {
  std::string chart;
  std::string release_name;
  std::string namespace_name;
  std::vector<std::string> values_files;
  std::string kube_version;
  std::vector<std::string> api_versions;
  bool skip_hooks = false;
  int line = 0;  // where the entry starts in the file, for messages
};

struct GitSettings {
  std::optional<std::string> token_file, basic_auth_file, ssh_key_file, ssh_passphrase_file, known_hosts_file;
  std::optional<bool> insecure_ignore_host_key;
};

// spec.verify: commit signature verification, as the --verify-* flags. Taken
// from -f (or a plain directory's opctl.yaml) only: a file inside the source
// comes from the commit it would vouch for (see apply_found_config).
struct VerifySettings {
  std::optional<bool> commits;
  std::optional<std::string> allowed_signers_file, gpg_keyring_file;
};

// spec.qps and --qps: "auto" (the default) adapts the client's request rate
// to the API server's pushback (429); a number is a fixed rate in requests
// per second, 0 for no client-side limit at all.
struct RequestRate {
  std::optional<double> fixed;  // nullopt: auto
  bool operator==(const RequestRate&) const = default;
};

// spec.notifications: where a pass's result is sent (reconcile/notify/). A
// credential is never written here: tokenFile/tokenEnv (and urlFile/urlEnv,
// for a Slack URL, which is one) name where it is read at send time.
enum class NotificationType { webhook, slack, github, gitlab };
enum class NotificationTrigger { failure, change, success, always };

struct Notification {
  NotificationType type = NotificationType::webhook;
  std::string name;                    // for messages; empty: the type
  std::string url, url_file, url_env;  // webhook, slack: exactly one
  std::string api_url;                 // github, gitlab; empty: derived from the source's host
  std::string repository;              // github owner/repo, gitlab project path or id; empty: derived
  std::string token_file, token_env;   // at most one (github, gitlab: exactly one; slack: none)
  // webhook: the HMAC-SHA256 key that signs the body (X-Opctl-Signature-256); at most one
  std::string signing_key_file, signing_key_env;
  std::string context;     // commit status context/name; empty: opctl/<set name>
  std::string target_url;  // commit status link, or the link in a message
  std::string channel;     // slack: overrides the webhook's channel
  std::vector<NotificationTrigger> triggers = {NotificationTrigger::failure, NotificationTrigger::change};
  std::chrono::milliseconds timeout{10'000};  // per attempt
  int retries = 2;                            // after a network error, HTTP 429 or 5xx
  int line = 0;                               // where the entry starts, for messages
};

const char* to_string(NotificationType type);

// spec.clusterDefaults: what a Cluster resource that leaves a field out gets
// at this site, set once here instead of in every Cluster.
struct ClusterDefaults {
  // The PostgreSQL image of a Cluster without spec.imageName (as
  // --default-postgres-image); nullopt: the built-in name, which no public
  // registry serves (deploy/postgresql.Dockerfile builds it).
  std::optional<std::string> image_name;
};

// spec.metrics: as --metrics-file and --metrics-push. Both name places on
// the machine that runs opctl (a file to write, a credential to send), so
// only -f (or a plain directory's opctl.yaml) may set them: an opctl.yaml
// inside a git source that does is refused (cli's apply_found_config).
struct MetricsPushSettings {
  std::string url;                  // the Pushgateway, http:// or https://, no credentials in it
  std::string auth_file, auth_env;  // at most one: the Authorization header's value
  int line = 0;                     // where push starts, for messages
};

struct MetricsSettings {
  std::optional<std::string> file;
  int file_line = 0;
  std::optional<MetricsPushSettings> push;
};

struct RunConfig {
  std::string file;                        // where it was read from; empty when there is none
  std::string name;                        // metadata.name; empty when not given (the set is unnamed)
  std::string namespace_name = "default";  // where the Lease and the ApplySet parent live

  std::optional<std::string> repo, ref, path, cache_dir;
  GitSettings git;
  VerifySettings verify;
  std::optional<std::string> default_namespace;
  std::optional<bool> prune, prune_namespaces, prune_crds, prune_data, allow_empty, wait, force_conflicts;
  std::optional<model::PruneLimit> max_prune;  // maxPrune: "N" or "P%"
  std::optional<bool> keep_running;            // spec.keepRunning, as --no-keep-running when false
  std::optional<std::string> delete_propagation;
  std::optional<std::chrono::milliseconds> timeout;       // as --timeout; 0: check once, never wait
  std::optional<std::chrono::milliseconds> exec_timeout;  // kubeconfig exec plugins, as --exec-timeout
  std::optional<int> concurrency, burst;
  std::optional<RequestRate> qps;
  std::vector<IgnoreDifference> ignore_differences;
  std::vector<HealthOverride> health;
  std::chrono::seconds lease_duration{60};  // whole seconds: a Lease counts seconds
  bool lease_enabled = true;
  std::vector<HookKind> kinds;
  std::vector<HelmChart> helm;
  std::vector<Notification> notifications;
  MetricsSettings metrics;
  ClusterDefaults cluster_defaults;
};

// The name of a set's ApplySet parent Secret and of its Lease, both in
// RunConfig::namespace_name ("opctl-<metadata.name>"); opctl install names
// the set's ServiceAccount so too. Every reader and writer of the set must
// agree on it, or a pass would not find its own inventory.
std::string set_object_name(const std::string& config_name);

// True for an opctl.yaml among the files of a source (settings, not a
// manifest): "opctl.yaml", "dir/opctl.yaml", "repo@abc:opctl.yaml".
bool is_config_file_path(const std::string& path);

// Parses opctl.yaml; throws InvalidInputError listing every problem.
RunConfig parse_run_config(const std::string& text, const std::string& file);

// "auto", or a number of requests per second >= 0 ("200", "12.5", "0");
// nullopt for anything else.
std::optional<RequestRate> parse_request_rate(const std::string& text);

// Go's time.ParseDuration, as kubectl reads --timeout: "500ms", "1.5s", "1m30s", "2h", "0" (units ns,
// us, ms, s, m, h; a decimal fraction on any part). Rounded up to whole milliseconds. nullopt when
// malformed, negative, or a bare number other than 0.
std::optional<std::chrono::milliseconds> parse_duration(const std::string& text);

// The duration as Go prints one: "0s", "500ms", "1.5s", "1m30s", "2h0m0s".
std::string format_duration(std::chrono::milliseconds duration);

// What a malformed duration's message says it should look like.
inline constexpr const char* k_duration_examples = "500ms, 90s, 1m30s or 2h";

}  // namespace opctl::config
