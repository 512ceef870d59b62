// opctl install: print (or --apply) what runs opctl in the cluster on a
// schedule, with RBAC computed from the desired set. The manifests come from
// reconcile/install; this file loads the set, wires the resource lookup, and
// prints or applies.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "build_info.hpp"
#include "cluster_connection.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "desired_set.hpp"
#include "exit_codes.hpp"
#include "install/install_manifests.hpp"
#include "install/resource_lookup.hpp"
#include "kinds/kind_registry.hpp"
#include "model/yaml_document.hpp"
#include "pass_progress.hpp"
#include "plan/kind_scopes.hpp"
#include "source/manifest_parser.hpp"

namespace opctl::cli {
namespace {

using model::Json;

struct InstallCommandOptions {
  CommonOptions common;
  install::InstallOptions install;
  std::string rbac = "least-privilege";
  bool apply = false;
  std::string output = "yaml";
};

// The text of the opctl.yaml that was read: from disk (-f, or the one at
// --path), or from inside the git source.
std::string config_text(CommonOptions& options) {
  const std::string& file = options.config.file;
  std::error_code ignored;
  if (std::filesystem::is_regular_file(file, ignored)) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  for (const auto& found : source::load_desired_source(options.source).files)
    if (found.path == file) return found.content;
  throw InvalidInputError({Problem{file, 0, "", "cannot read the config file again"}});
}

// Built-in kinds and CRDs known offline; anything else is asked of the
// cluster, connected only then.
install::ResourceLookup make_lookup(const std::vector<model::Object>& objects,
                                    const kinds::KindRegistry& registry, const CommonOptions& options,
                                    std::optional<ClusterConnection>& connection) {
  std::vector<Json> crds = install::crds_in(objects);
  for (auto& crd : registry.custom_resource_definitions())
    crds.push_back(std::move(crd));
  auto cluster = [&options,
                  &connection](const model::GroupVersionKind& gvk) -> std::optional<install::ResourceRef> {
    if (!connection) connection = connect(options);
    auto info = connection->mapper->find(gvk);
    if (!info) return std::nullopt;
    return install::ResourceRef{gvk.group, info->resource, info->namespaced};
  };
  return install::first_of({install::offline_lookup(crds), cluster});
}

// Fills what the install options take from the loaded config and source.
void adopt_config(InstallCommandOptions& options) {
  CommonOptions& common = options.common;
  install::InstallOptions& install = options.install;
  install.config_name = common.config.name;
  install.cluster_admin = options.rbac == "cluster-admin";
  install.repo = common.source.repo;
  install.ref = common.source.ref;
  install.path = common.source.path;
  if (flag_given(common, "--name")) install.set_name = common.config.name;
  if (common.config.file.empty()) {
    // Without opctl.yaml, keep the Lease and the ApplySet parent beside the CronJob.
    common.config.namespace_name = install.namespace_name;
    install.config_text = install::minimal_config_text(install.config_name, install.namespace_name);
  } else {
    install.config_text = config_text(common);
  }
  const auto& push = common.config.metrics.push;
  if (!install.metrics_push_auth_secret.empty() && install.metrics_push_url.empty() && !push)
    throw InvalidInputError({Problem{"", 0, "--metrics-push-auth-secret",
                                     "the runs push nowhere: give --metrics-push URL (or "
                                     "spec.metrics.push.url in opctl.yaml)"}});
}

std::vector<Json> build_manifests(InstallCommandOptions& options,
                                  std::optional<ClusterConnection>& connection) {
  options.install.repo = options.common.source.repo;  // checked for credentials before anything is fetched
  const auto& verification = options.common.source.verification;
  options.install.verify_commits = verification.enabled;
  options.install.verify_ssh = !verification.allowed_signers_file.empty();
  options.install.verify_gpg = !verification.gpg_keyring_file.empty();
  if (auto problems = install::option_problems(options.install); !problems.empty())
    throw InvalidInputError(std::move(problems));
  CommonOptions& common = options.common;
  auto objects = load_manifests(common).second;
  adopt_config(options);
  auto registry = kinds::make_registry(common.config.kinds);
  auto lookup = make_lookup(objects, registry, common, connection);
  // In the cluster, objects that name no namespace land in opctl.yaml's
  // spec.namespace, else in the ServiceAccount's namespace (the in-cluster default).
  plan::resolve_scopes(install::scopes_of(lookup), objects,
                       common.config.default_namespace.value_or(options.install.namespace_name));
  if (auto duplicates = source::duplicate_problems(objects); !duplicates.empty())
    throw InvalidInputError(std::move(duplicates));
  if (auto findings = registry.check(objects); !findings.errors.empty())
    throw InvalidInputError(std::move(findings.errors));
  install::RbacInputs inputs{lookup, &registry, common.config.name, common.config.namespace_name,
                             common.config.lease_enabled};
  install::RbacRules rbac =
      options.install.cluster_admin ? install::RbacRules{} : install::compute_rbac(objects, inputs);
  return install::install_manifests(options.install, rbac);
}

std::string default_image() {
  return std::string("ghcr.io/opctl/opctl:") + k_version;
}

std::string describe(const Json& object) {
  std::string namespace_name = object["metadata"].value("namespace", "");
  return object.value("kind", "") + " " + (namespace_name.empty() ? "" : namespace_name + "/") +
         object["metadata"].value("name", "");
}

// Server-side apply in order, as field manager opctl. Namespaces are only
// created when missing: the desired set's Namespaces are opctl reconcile's
// to apply, and an apply here would take their fields away.
int apply_manifests(const std::vector<Json>& manifests, const CommonOptions& options,
                    std::optional<ClusterConnection>& connection) {
  if (!connection) connection = connect(options);
  std::vector<std::string> failures;
  for (const auto& body : manifests) {
    model::Object object(body);
    auto info = connection->mapper->find(object.gvk());
    if (!info) throw ClusterError("the cluster does not serve " + object.api_version() + " " + object.kind());
    bool is_namespace = object.kind() == "Namespace";
    kube::ApplyOptions apply;
    apply.force = true;  // these objects are opctl install's own
    auto result =
        connection->client->execute(is_namespace ? connection->client->create_request(*info, object, false)
                                                 : connection->client->apply_request(*info, object, apply));
    if (is_namespace && result.status.reason == kube::ApiReason::already_exists) {
      if (!options.quiet) std::cout << describe(body) << " exists\n";
      continue;
    }
    if (!result.ok()) {
      failures.push_back(describe(body) + ": " + result.status.describe());
      continue;
    }
    if (!options.quiet) std::cout << describe(body) << " applied\n";
  }
  for (const auto& failure : failures)
    std::cerr << "error: " << failure << "\n";
  return failures.empty() ? k_exit_ok : k_exit_cluster_error;
}

void print_manifests(const std::vector<Json>& manifests, const std::string& output) {
  if (output == "json") {
    std::cout << Json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", manifests}}.dump(2) << "\n";
    return;
  }
  std::cout << "# opctl " << k_version << " in the cluster: generated by `opctl install`.\n";
  for (const auto& object : manifests)
    std::cout << "---\n" << model::to_yaml(object);
}

// opctl.yaml's spec.metrics goes into the ConfigMap as it is, but its paths are this machine's: inside the
// container only the mounted Secret holds a credential, and a written file is collected by nobody.
void warn_metrics_paths(const InstallCommandOptions& options) {
  const auto& metrics = options.common.config.metrics;
  if (options.common.quiet) return;
  if (metrics.file)
    std::cerr
        << "warning: " << options.common.config.file << ":" << metrics.file_line
        << ": spec.metrics.file: the CronJob's runs write " << *metrics.file
        << " inside their container, whose root filesystem is read-only (a run that cannot write it exits "
           "2) and where nothing collects it: leave it out of the opctl.yaml installed, and push with "
           "--metrics-push URL\n";
  std::string mounted = std::string(install::k_metrics_push_dir) + "/";
  if (metrics.push && !metrics.push->auth_file.empty() && !metrics.push->auth_file.starts_with(mounted) &&
      options.install.metrics_push_auth_secret.empty())
    std::cerr << "warning: " << options.common.config.file << ":" << metrics.push->line
              << ": spec.metrics.push.authFile: " << metrics.push->auth_file
              << " is not in the CronJob's container: give --metrics-push-auth-secret NAME (mounted at "
              << mounted << install::k_metrics_push_auth_key << ")\n";
}

int run_install(InstallCommandOptions& options) {
  finish_source_options(options.common);
  FetchProgress fetching(options.common);
  std::optional<ClusterConnection> connection;
  auto manifests = build_manifests(options, connection);
  warn_metrics_paths(options);
  if (options.install.repo.empty() && !options.common.quiet)
    std::cerr << "warning: the source is a local path; the CronJob will look for --path "
              << options.install.path << " inside its container: give --repo to fetch it from git\n";
  // The default names where a release will live; nothing publishes it yet.
  if (options.install.image == default_image() && !options.common.quiet)
    std::cerr
        << "note: the CronJob runs " << default_image()
        << ", which no registry publishes yet: build deploy/Dockerfile, push it where the cluster pulls "
           "from, and give --image\n";
  if (options.apply) return apply_manifests(manifests, options.common, connection);
  print_manifests(manifests, options.output);
  return k_exit_ok;
}

}  // namespace

void register_install(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<InstallCommandOptions>();
  options->install.image = default_image();
  auto* command = app.add_subcommand("install",
                                     "Print (or --apply) the CronJob, ServiceAccount, least-privilege RBAC "
                                     "and config to run opctl in-cluster");
  command->footer(
      "The RBAC is computed from the desired set, loaded as `opctl reconcile` loads it: one Role per "
      "namespace with "
      "only the resources used there, a ClusterRole for cluster-scoped objects limited to their names, the "
      "custom "
      "kinds' children, the Lease and the ApplySet parent. Re-run after the set gains a kind or a "
      "namespace.\n\n"
      "Exit codes: 0 printed or applied, 2 invalid input (nothing applied), 3 cluster or API error.\n\n"
      "Examples:\n"
      "  opctl install --repo https://git.example/ops.git --path prod | kubectl apply --server-side -f -\n"
      "  opctl install --repo git@git.example:ops.git --git-secret opctl-git --schedule '*/15 * * * *' "
      "--apply\n"
      "  opctl install --path manifests-example/ --rbac cluster-admin -o json\n"
      "  opctl install --repo https://git.example/ops.git --path prod --metrics-push "
      "http://pushgateway.monitoring:9091 --metrics-push-auth-secret opctl-metrics --apply\n");
  add_source_flags(*command, options->common);
  add_set_flags(*command, options->common);
  command->add_option(
      "--kubeconfig", options->common.kubeconfig,
      "Path to the kubeconfig file, for --apply and kinds not known offline (default: $KUBECONFIG, "
      "then ~/.kube/config)");
  command->add_option("--context", options->common.context,
                      "The kubeconfig context to use (default: current-context)");
  command
      ->add_option("-n,--namespace", options->install.namespace_name,
                   "Namespace to install into (the CronJob, its ServiceAccount and opctl.yaml)")
      ->capture_default_str();
  command
      ->add_option("--schedule", options->install.schedule, "Cron schedule of the runs, e.g. '*/15 * * * *'")
      ->capture_default_str();
  command->add_option("--image", options->install.image, "The opctl container image the CronJob runs")
      ->capture_default_str();
  command
      ->add_option(
          "--rbac", options->rbac,
          "least-privilege: rules computed from the desired set; cluster-admin: bind cluster-admin instead")
      ->check(CLI::IsMember({"least-privilege", "cluster-admin"}))
      ->capture_default_str();
  command->add_option("--git-secret", options->install.git_secret,
                      "Name of an existing Secret with git credentials (keys: token, or ssh-privatekey and "
                      "known_hosts), mounted into the CronJob; its content is never read");
  command->add_option(
      "--verify-secret", options->install.verify_secret,
      "Name of an existing Secret with the trust files the runs verify commits with (keys: "
      "allowed_signers and/or keyring.gpg, as --verify-allowed-signers and --verify-gpg-keyring "
      "are given), mounted into the CronJob; its content is never read");
  command->add_option(
      "--sops-age-secret", options->install.sops_age_secret,
      "Name of an existing Secret whose key age.agekey holds the age identity that decrypts the "
      "source's SOPS files, mounted into the CronJob; its content is never read");
  command->add_option(
      "--notify-secret", options->install.notify_secret,
      "Name of an existing Secret with the credentials of opctl.yaml's notifications, mounted into the "
      "CronJob at /etc/opctl/notify (point tokenFile/urlFile at /etc/opctl/notify/KEY); its content is "
      "never read");
  command->add_option("--metrics-push", options->install.metrics_push_url,
                      "Each run pushes its Prometheus metrics to this Pushgateway (e.g. "
                      "http://pushgateway.monitoring:9091), as reconcile --metrics-push does (also: "
                      "spec.metrics.push.url of opctl.yaml)");
  command->add_option(
      "--metrics-push-auth-secret", options->install.metrics_push_auth_secret,
      "Name of an existing Secret whose key authorization holds the Authorization header value for the "
      "push (\"Bearer TOKEN\" or \"Basic BASE64\"), mounted into the CronJob at "
      "/etc/opctl/metrics-push/authorization; its content is never read");
  command->add_flag("--apply", options->apply,
                    "Server-side apply the objects (field manager opctl) instead of printing them");
  command->add_option("-o,--output", options->output, "Output format when printing")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  add_output_flags(*command, options->common);
  add_progress_flag(*command, options->common);
  command->callback([options, &action] { action = [options] { return run_install(*options); }; });
}

}  // namespace opctl::cli
