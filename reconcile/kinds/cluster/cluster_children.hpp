// The children of a Cluster as full objects to server-side apply: instance
// Pods and PVCs, the three Services, the PodDisruptionBudgets, and the
// ServiceAccount the instances' sidecar runs as. The runner adds the ownerReference and the owner-uid label.
//
// Pod and PVC specs are (mostly) immutable, so a child that already exists is
// carried over from the live object with only its labels and annotations
// recomputed; a changed spec means deleting the Pod and creating it anew.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/object_store.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

// Where the primary archives its WAL (spec.walArchive): a directory on a
// Backup's target volume, mounted at /backups in every instance, or the
// Backup's object store (barman-cloud-wal-archive, the keys from its Secret).
struct WalArchive {
  std::string directory;  // wal_archive_directory(backup); empty with a store
  model::Json volume;     // the Pod volume source of the Backup's target; null with a store
  std::optional<ObjectStore> store;
};

// What every instance Pod of one spec shares, and the hash that tells an
// up-to-date Pod (annotation opctl.io/pod-spec-hash) from an outdated one.
struct PodTemplate {
  std::string image;
  std::string hash;
  std::optional<WalArchive> wal_archive;
};
PodTemplate pod_template(const ClusterSpec& spec, const std::string& image,
                         std::optional<WalArchive> wal_archive = std::nullopt);

model::Json build_pod(const ClusterSpec& spec, const PodTemplate& pod_template, const std::string& instance,
                      const std::string& role);
model::Json carry_over_pod(const ClusterSpec& spec, const model::Json& live, const std::string& role);

model::Json build_pvc(const ClusterSpec& spec, const std::string& instance);
// The live volume, expanded when spec.storage.size grew; `detached` marks a volume kept by a scale-down.
model::Json carry_over_pvc(const ClusterSpec& spec, const model::Json& live, bool detached);

// -rw (the primary), -ro (the replicas), -r (every instance).
std::vector<model::Json> build_services(const ClusterSpec& spec);
// The PodDisruptionBudgets CloudNativePG keeps (pkg/specs/poddisruptionbudget.go),
// so that a drain never evicts the primary, nor more than one replica at a time:
// <name>-primary (minAvailable 1, even with one instance, so its node's drain
// waits) and, from 3 instances on, <name> for the replicas (minAvailable
// instances - 2). Evictions only: the pass itself deletes Pods regardless.
std::vector<model::Json> build_disruption_budgets(const ClusterSpec& spec);
// ServiceAccount, Role and RoleBinding of one instance, all named after it:
// read the Cluster's Pods, patch its own Pod only, read the Cluster and its
// Secrets, read and write the primary Lease.
std::vector<model::Json> build_instance_rbac(const ClusterSpec& spec, const std::string& instance);

// The primary Lease ("<cluster>-primary"), metadata only: created by the pass,
// held and renewed by the instance managers (opctl-cluster-kind(5)).
model::Json build_primary_lease(const ClusterSpec& spec);

// A Job that already exists, listed again as it is and marked create-only:
// a Job's template is immutable, so the runner never updates it.
model::Json carry_over_job(const model::Json& live);

// The metadata every child starts from: name, namespace, the cluster label.
model::Json child_metadata(const ClusterSpec& spec, const std::string& name);
// securityContext shared by instance Pods and Jobs: PostgreSQL's uid and gid.
model::Json pod_security_context(const ClusterSpec& spec);
model::Json pvc_volume(const std::string& volume, const std::string& claim, bool read_only = false);
// A container's environment entry with a literal value.
model::Json env_value(const char* name, const std::string& value);

}  // namespace opctl::kinds::cluster
