// The CronJob that runs `opctl reconcile` in the cluster, hardened the way a
// restricted Pod Security Standard expects: non-root, no capabilities, a
// read-only root filesystem with the cache and /tmp on emptyDirs.
#include <fmt/format.h>

#include "install/install_manifests.hpp"
#include "install/object_metadata.hpp"

namespace opctl::install {
namespace {

using model::Json;

// The uid the image's user has (deploy/Dockerfile); any non-root uid works.
constexpr int k_uid = 65532;

bool is_ssh_url(const std::string& repo) {
  if (repo.starts_with("ssh://")) return true;
  // scp-like git@host:path, as opposed to a URL with a scheme or a local path
  auto at = repo.find('@'), colon = repo.find(':');
  return repo.find("://") == std::string::npos && at != std::string::npos && colon != std::string::npos &&
         at < colon;
}

Json volumes(const InstallOptions& options) {
  Json list = Json::array({
      {{"name", "config"}, {"configMap", {{"name", service_account_name(options)}}}},
      {{"name", "cache"}, {"emptyDir", {{"sizeLimit", "1Gi"}}}},
      {{"name", "tmp"}, {"emptyDir", {{"sizeLimit", "256Mi"}}}},
  });
  // Readable by the pod's group only; the kubelet mounts it, opctl reads files.
  if (!options.git_secret.empty())
    list.push_back(
        {{"name", "git"}, {"secret", {{"secretName", options.git_secret}, {"defaultMode", 0440}}}});
  // Only the identity, so a Secret holding more keys shows the Pod nothing else.
  if (!options.sops_age_secret.empty())
    list.push_back({{"name", "sops-age"},
                    {"secret",
                     {{"secretName", options.sops_age_secret},
                      {"defaultMode", 0440},
                      {"items", Json::array({{{"key", k_sops_age_key}, {"path", k_sops_age_key}}})}}}});
  if (!options.verify_secret.empty()) {
    Json items = Json::array();
    for (const auto& [wanted, key] : {std::pair{options.verify_ssh, k_allowed_signers_key},
                                      std::pair{options.verify_gpg, k_gpg_keyring_key}})
      if (wanted) items.push_back({{"key", key}, {"path", key}});
    list.push_back(
        {{"name", "verify"},
         {"secret", {{"secretName", options.verify_secret}, {"defaultMode", 0440}, {"items", items}}}});
  }
  if (!options.notify_secret.empty())
    list.push_back(
        {{"name", "notify"}, {"secret", {{"secretName", options.notify_secret}, {"defaultMode", 0440}}}});
  if (!options.metrics_push_auth_secret.empty())
    list.push_back({{"name", "metrics-push"},
                    {"secret",
                     {{"secretName", options.metrics_push_auth_secret},
                      {"defaultMode", 0440},
                      {"items", Json::array({{{"key", k_metrics_push_auth_key},
                                              {"path", k_metrics_push_auth_key}}})}}}});
  return list;
}

Json volume_mounts(const InstallOptions& options) {
  Json list = Json::array({
      {{"name", "config"}, {"mountPath", k_config_dir}, {"readOnly", true}},
      {{"name", "cache"}, {"mountPath", k_cache_dir}},
      {{"name", "tmp"}, {"mountPath", "/tmp"}},
  });
  if (!options.git_secret.empty())
    list.push_back({{"name", "git"}, {"mountPath", k_git_dir}, {"readOnly", true}});
  if (!options.sops_age_secret.empty())
    list.push_back({{"name", "sops-age"}, {"mountPath", k_sops_age_dir}, {"readOnly", true}});
  if (!options.verify_secret.empty())
    list.push_back({{"name", "verify"}, {"mountPath", k_verify_dir}, {"readOnly", true}});
  if (!options.notify_secret.empty())
    list.push_back({{"name", "notify"}, {"mountPath", k_notify_dir}, {"readOnly", true}});
  if (!options.metrics_push_auth_secret.empty())
    list.push_back({{"name", "metrics-push"}, {"mountPath", k_metrics_push_dir}, {"readOnly", true}});
  return list;
}

Json container(const InstallOptions& options) {
  return {{"name", "opctl"},
          {"image", options.image},
          {"args", reconcile_args(options)},
          // The discovery cache and anything else that follows $HOME stay on the emptyDir.
          {"env", Json::array({{{"name", "XDG_CACHE_HOME"}, {"value", k_cache_dir}},
                               {{"name", "HOME"}, {"value", k_cache_dir}}})},
          {"resources",
           {{"requests", {{"cpu", "100m"}, {"memory", "128Mi"}}},
            {"limits", {{"cpu", "1"}, {"memory", "512Mi"}}}}},
          {"securityContext",
           {{"allowPrivilegeEscalation", false},
            {"readOnlyRootFilesystem", true},
            {"runAsNonRoot", true},
            {"runAsUser", k_uid},
            {"capabilities", {{"drop", {"ALL"}}}}}},
          {"volumeMounts", volume_mounts(options)}};
}

Json pod_spec(const InstallOptions& options) {
  return {{"serviceAccountName", service_account_name(options)},
          {"restartPolicy", "Never"},
          {"securityContext",
           {{"runAsNonRoot", true},
            {"runAsUser", k_uid},
            {"runAsGroup", k_uid},
            {"fsGroup", k_uid},
            {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
          {"containers", Json::array({container(options)})},
          {"volumes", volumes(options)}};
}

}  // namespace

std::vector<std::string> reconcile_args(const InstallOptions& options) {
  std::vector<std::string> args = {"reconcile", "-f", std::string(k_config_dir) + "/opctl.yaml",
                                   "--cache-dir", std::string(k_cache_dir) + "/git"};
  for (const auto& [flag, value] : {std::pair{"--repo", options.repo},
                                    {"--ref", options.ref},
                                    {"--path", options.path},
                                    {"--name", options.set_name}})
    if (!value.empty()) args.insert(args.end(), {flag, value});
  if (!options.sops_age_secret.empty())
    args.insert(args.end(), {"--sops-age-key-file", std::string(k_sops_age_dir) + "/" + k_sops_age_key});
  if (!options.verify_secret.empty()) {
    std::string dir = k_verify_dir;
    args.push_back("--verify-commits");
    if (options.verify_ssh)
      args.insert(args.end(), {"--verify-allowed-signers", dir + "/" + k_allowed_signers_key});
    if (options.verify_gpg) args.insert(args.end(), {"--verify-gpg-keyring", dir + "/" + k_gpg_keyring_key});
  }
  if (!options.metrics_push_url.empty())
    args.insert(args.end(), {"--metrics-push", options.metrics_push_url});
  if (!options.metrics_push_auth_secret.empty())
    args.insert(args.end(), {"--metrics-push-auth-file",
                             std::string(k_metrics_push_dir) + "/" + k_metrics_push_auth_key});
  if (options.git_secret.empty()) return args;
  std::string dir = k_git_dir;
  if (is_ssh_url(options.repo)) {
    args.insert(args.end(), {"--git-ssh-key-file", dir + "/ssh-privatekey", "--git-known-hosts-file",
                             dir + "/known_hosts"});
  } else {
    args.insert(args.end(), {"--git-token-file", dir + "/token"});
  }
  return args;
}

Json cron_job(const InstallOptions& options) {
  Json labels = install_labels(options);
  return {{"apiVersion", "batch/v1"},
          {"kind", "CronJob"},
          {"metadata", install_metadata(options, service_account_name(options), options.namespace_name)},
          {"spec",
           {{"schedule", options.schedule},
            // Runs never overlap (the Lease would stop the second anyway), and a
            // run missed by more than a few minutes waits for the next slot.
            {"concurrencyPolicy", "Forbid"},
            {"startingDeadlineSeconds", 180},
            {"successfulJobsHistoryLimit", 3},
            {"failedJobsHistoryLimit", 3},
            {"jobTemplate",
             {{"metadata", {{"labels", labels}}},
              {"spec",
               {{"backoffLimit", 1},
                {"activeDeadlineSeconds", 3600},
                {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec(options)}}}}}}}}}};
}

}  // namespace opctl::install
