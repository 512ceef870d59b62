// The instance manager's inputs and reports through the Kubernetes API, with
// the Pod's ServiceAccount (RBAC in opctl-cluster-kind(5)): each observe()
// lists the Cluster's Pods and reads the Cluster (two requests); the Secrets
// (the Cluster's own, the TLS Secret and those spec.managed.roles name) are read every 10 s; a report patches
// this Pod's annotations when something changed (positions at most every 2 s), and every 10 s anyway with the
// time (opctl.io/reported-at), so a stale report shows as such; the same patch sets its role label
// (opctl.io/role, what -rw selects) from what PostgreSQL does: primary only while it accepts writes.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "instance/instance_identity.hpp"
#include "instance/instance_inputs.hpp"
#include "kube/api_client.hpp"

namespace opctl::instance {

class KubeEnvironment : public InstanceEnvironment {
 public:
  KubeEnvironment(kube::ApiClient& client, InstanceIdentity identity);

  Inputs observe() override;
  void report(const InstanceReport& report) override;

 private:
  std::optional<Credentials> read_credentials();
  // The Secrets spec.managed.roles name, each with what is wrong with it (never its value).
  std::map<std::string, RolePassword> read_role_passwords(const std::vector<std::string>& names);
  // The server certificate's Secret(s) the Cluster's spec.certificates names; nullopt while absent
  // or not readable yet (a Role from before TLS), and the last one read is kept meanwhile.
  std::optional<TlsMaterial> read_tls(const model::Json& cluster_spec);
  // The backup Jobs' Pods asking for a base backup (store_backups.hpp), oldest first.
  std::vector<BackupRequest> read_backup_requests();

  kube::ApiClient& client_;
  InstanceIdentity identity_;
  std::optional<Credentials> credentials_;
  std::optional<TlsMaterial> tls_;
  std::chrono::steady_clock::time_point credentials_read_at_{};
  // Read every few seconds, not every step: a backup waits seconds anyway, and every instance lists.
  std::vector<BackupRequest> backup_requests_;
  std::chrono::steady_clock::time_point backup_requests_read_at_{};
  std::map<std::string, RolePassword> role_passwords_;  // read with the credentials, every 10 s
  std::optional<InstanceReport> reported_;
  std::string role_label_;  // this Pod's opctl.io/role label as last seen or written
  std::chrono::steady_clock::time_point reported_at_{};
};

}  // namespace opctl::instance
