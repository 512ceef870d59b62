// The names a Cluster and its instances agree on: child names, the labels
// Services select by, and the annotations the instance manager writes (the
// contract is documented in opctl-cluster-kind(5)).
#pragma once

#include <optional>
#include <string>

namespace opctl::kinds::cluster {

inline constexpr const char* k_group = "opctl.io";
inline constexpr const char* k_version = "v1alpha1";

// Labels on instance Pods (and, without the role, on PVCs).
inline constexpr const char* k_cluster_label = "opctl.io/cluster";
inline constexpr const char* k_instance_label = "opctl.io/instance";
inline constexpr const char* k_role_label = "opctl.io/role";
inline constexpr const char* k_role_primary = "primary";
inline constexpr const char* k_role_replica = "replica";
// On the Jobs the pass runs: what the Job is for (restore, major-upgrade, final-backup).
inline constexpr const char* k_job_label = "opctl.io/cluster-job";
// On the final backup Job: the Backup whose target receives the artifact.
inline constexpr const char* k_backup_label = "opctl.io/backup";

// Written by the pass.
inline constexpr const char* k_spec_hash_annotation = "opctl.io/pod-spec-hash";
inline constexpr const char* k_detached_annotation = "opctl.io/detached";
// Written by the instance manager (`opctl instance run`) on its own Pod.
inline constexpr const char* k_instance_role_annotation =
    "opctl.io/instance-role";                                                    // primary|replica|stopped
inline constexpr const char* k_current_lsn_annotation = "opctl.io/current-lsn";  // a primary's position
inline constexpr const char* k_timeline_annotation = "opctl.io/timeline";
inline constexpr const char* k_streaming_annotation = "opctl.io/streaming";  // a replica: "true" or "false"
inline constexpr const char* k_received_lsn_annotation = "opctl.io/received-lsn";
inline constexpr const char* k_replay_lsn_annotation = "opctl.io/replay-lsn";
inline constexpr const char* k_lsn_annotation = "opctl.io/lsn";
inline constexpr const char* k_instance_error_annotation = "opctl.io/instance-error";
// The configuration_hash() of the spec.postgresql the running PostgreSQL has
// loaded, and the parameters it needs a restart for (comma-separated).
inline constexpr const char* k_config_hash_annotation = "opctl.io/config-hash";
inline constexpr const char* k_pending_restart_annotation = "opctl.io/pending-restart";
// Of those, the ones lowered that a standby must hold at least at its primary's value
// (max_connections ...): the primary restarts first.
inline constexpr const char* k_pending_decrease_annotation = "opctl.io/pending-restart-decrease";
// What the primary's manager did with spec.managed (ManagedReport, JSON); only on the primary.
inline constexpr const char* k_managed_status_annotation = "opctl.io/managed-status";
// A primary's replication slots, standbys and archiver as JSON (opctl cluster status shows them).
inline constexpr const char* k_replication_annotation = "opctl.io/replication";
// The primary's answers to the backup Jobs that ask it for a base backup to the object store (JSON by
// request Pod uid: pod, phase waiting|running|completed|failed, message).
inline constexpr const char* k_backup_requests_annotation = "opctl.io/backup-requests";
// On a backup Job's Pod: it asks the named Cluster's primary for a base backup to the object store.
inline constexpr const char* k_backup_request_label = "opctl.io/backup-request";
// When the manager last reported (RFC 3339, its clock): at least every 10 s
// while it runs, so a pass can tell a live report from a stale one.
inline constexpr const char* k_reported_at_annotation = "opctl.io/reported-at";
// Written by `opctl promote CLUSTER INSTANCE` on the Cluster: INSTANCE, optionally "@" and a nonce.
inline constexpr const char* k_promote_annotation = "opctl.io/promote";
// Written by `opctl cluster restart CLUSTER` on the Cluster: when (RFC 3339).
// The pass copies it onto the Pod template, so every instance is recreated
// in a rolling update (kubectl rollout restart's kubectl.kubernetes.io/restartedAt).
inline constexpr const char* k_restarted_at_annotation = "opctl.io/restarted-at";
// Written by `opctl cluster restart CLUSTER INSTANCE`: INSTANCE "@" a nonce;
// the next pass recreates that instance's Pod once (the primary in place).
inline constexpr const char* k_restart_instance_annotation = "opctl.io/restart-instance";
// Written by `opctl cluster reload CLUSTER`: a nonce; every instance manager
// that sees a new value rewrites its configuration files and reloads PostgreSQL.
inline constexpr const char* k_reload_annotation = "opctl.io/reload";

// On the primary Lease, written by its holder at every renewal: the
// synchronous standbys ("<required>:<name>,<name>": each commit was
// acknowledged by <required> of them) and its timeline.
inline constexpr const char* k_sync_quorum_annotation = "opctl.io/synchronous-standbys";

inline constexpr const char* k_final_backup_finalizer = "opctl.io/final-backup";

inline constexpr int k_postgres_port = 5432;
inline constexpr const char* k_data_mount = "/var/lib/postgresql/data";
inline constexpr const char* k_pgdata = "/var/lib/postgresql/data/pgdata";
// The instance manager's socket, pg_hba.conf, passfile and readiness file (an emptyDir in memory).
inline constexpr const char* k_run_mount = "/run/opctl";

// "<cluster>-<serial>", the name of an instance's Pod and PVC.
std::string instance_name(const std::string& cluster, int serial);
// The serial of "<cluster>-<serial>"; nullopt for any other name.
std::optional<int> serial_of(const std::string& cluster, const std::string& instance);

std::string rw_service(const std::string& cluster);
std::string ro_service(const std::string& cluster);
std::string r_service(const std::string& cluster);
std::string app_secret(const std::string& cluster);
std::string superuser_secret(const std::string& cluster);
std::string replication_secret(const std::string& cluster);
// TLS (cluster_certificates.hpp): the CA opctl generates (ca.crt, ca.key), the server
// certificate the instances serve (tls.crt, tls.key, ca.crt), and a client certificate per
// user of spec.certificates.clientCertificates ('_' in the user name becomes '-').
std::string ca_secret(const std::string& cluster);
std::string server_secret(const std::string& cluster);
std::string client_secret(const std::string& cluster, const std::string& user);
std::string restore_job(const std::string& cluster, int serial);
std::string major_upgrade_job(const std::string& cluster, int to_major);
std::string final_backup_job(const std::string& cluster);
// The PodDisruptionBudgets, named as CloudNativePG names them: "<cluster>-primary" and "<cluster>" (the
// replicas).
std::string primary_pdb(const std::string& cluster);
// The primary Lease, "<cluster>-primary": only its holder runs PostgreSQL writable.
std::string primary_lease(const std::string& cluster);
std::string replica_pdb(const std::string& cluster);

}  // namespace opctl::kinds::cluster
