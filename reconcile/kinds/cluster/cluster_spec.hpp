// A Cluster's spec: the one schema that yields both the CRD's OpenAPI schema
// and `opctl validate`'s checks, and the parsed spec with its defaults.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "kinds/cluster/cluster_monitoring.hpp"
#include "kinds/cluster/managed_objects.hpp"
#include "kinds/cluster/pod_scheduling.hpp"
#include "kinds/cluster/postgres_configuration.hpp"
#include "kinds/postgres_image.hpp"
#include "kinds/schema/schema.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

// opctl's instance image (deploy/postgresql.Dockerfile): Debian's PostgreSQL 15
// with `opctl instance` as PID 1. Its tag starts with the PostgreSQL major
// version, then the opctl version whose instance manager it carries. Without
// spec.imageName a Cluster runs the site default, else this name.
inline constexpr const char* k_default_image = k_default_postgres_image;

// The most instances a Cluster may have. Every instance runs PostgreSQL with
// max_wal_senders and max_replication_slots sized for it (a standby needs at
// least its primary's values, so they are one fixed size, not the current
// count): a replica each, and room for base backups and clones beside them.
inline constexpr int k_max_instances = 32;
// max_wal_senders and max_replication_slots of every server that runs a
// Cluster's data (instances, and the restore Job's recovery, which PostgreSQL
// refuses below the values the WAL was written with).
inline constexpr int k_replication_limit = 2 * k_max_instances;

enum class PrimaryUpdateMethod { switchover, restart };
enum class PrimaryUpdateStrategy { unsupervised, supervised };

struct StorageSpec {
  std::string size;
  std::string storage_class;  // empty: the cluster's default StorageClass
  bool retain_on_scale_down = false;
};

// spec.certificates (cluster_certificates.hpp).
struct CertificatesSpec {
  std::string server_tls_secret;  // the user's kubernetes.io/tls Secret; empty: opctl issues <cluster>-server
  std::string server_ca_secret;   // the user's Secret with ca.crt (with server_tls_secret)
  std::vector<std::string> server_alt_dns_names;
  std::vector<std::string> client_certificates;  // users opctl issues a client certificate for
};

struct ClusterSpec {
  std::string name;
  std::string namespace_name;
  int instances = 1;
  std::string image_name = k_default_image;
  int major_version = 0;  // from the image tag
  StorageSpec storage;
  model::Json resources = model::Json::object();
  // The opctl.io/restarted-at annotation (`opctl cluster restart`): part of
  // the Pod template's hash, so a new value rolls every instance.
  std::string restarted_at;
  PrimaryUpdateMethod primary_update_method = PrimaryUpdateMethod::switchover;
  PrimaryUpdateStrategy primary_update_strategy = PrimaryUpdateStrategy::unsupervised;
  std::chrono::seconds failover_delay{0};
  // Synchronous replication, as CloudNativePG's: the primary waits for
  // ANY n of the replicas, n between these (0 and 0: asynchronous).
  int min_sync_replicas = 0;
  int max_sync_replicas = 0;
  long postgres_uid = 26;
  long postgres_gid = 26;
  std::string database = "app";
  std::string owner = "app";
  std::string recovery_backup;  // spec.bootstrap.recovery.backup; empty: a new database (initdb)
  std::string final_backup;     // spec.finalBackup.backup; empty: no backup at deletion
  // spec.bootstrap.recovery.targetTime / targetLSN: point-in-time recovery; empty: the latest artifact.
  std::string recovery_target_time;
  std::string recovery_target_lsn;
  std::string wal_archive_backup;    // spec.walArchive.backup; empty: no WAL archiving
  PodScheduling scheduling;          // spec.affinity, topologySpreadConstraints, priorityClassName, probes
  PostgresConfiguration postgresql;  // spec.postgresql, spec.enableSuperuserAccess
  ManagedObjects managed;            // spec.managed: roles and databases
  MonitoringSpec monitoring;         // spec.monitoring
  CertificatesSpec certificates;     // spec.certificates
};

schema::Schema cluster_spec_schema();
schema::Schema cluster_status_schema();

// Every problem with a Cluster resource: metadata.name (it prefixes every
// child's name) and the spec, with JSON pointers for file:line.
std::vector<schema::Issue> check_cluster(const model::Json& resource);

// The spec with defaults applied; call after check_cluster found nothing.
// `default_image`: the site default a Cluster without spec.imageName runs
// (opctl.yaml spec.clusterDefaults.imageName); empty: k_default_image.
ClusterSpec parse_cluster_spec(const model::Json& resource, const std::string& default_image = "");

// True when the resource names no spec.imageName (it runs a default).
bool uses_default_image(const model::Json& resource);

// What is wrong with the default a Cluster without spec.imageName would run:
// a site default whose tag gives no major version (an error, as spec.imageName's
// would be); nullopt when it names its image or the default is usable.
std::optional<schema::Issue> default_image_issue(const model::Json& resource,
                                                 const std::string& default_image);

// The warning for a Cluster that relies on k_default_image, which no public
// registry serves: how to build, push and name an image; nullopt when it
// names its image or a site default is set.
std::optional<schema::Issue> default_image_advice(const model::Json& resource,
                                                  const std::string& default_image);

// The PostgreSQL major version an image reference's tag starts with
// ("ghcr.io/cloudnative-pg/postgresql:16.4-bookworm" -> 16); nullopt without one.
std::optional<int> image_major_version(const std::string& image);

// A Kubernetes quantity ("10Gi", "500M", "1.5Gi") in bytes; nullopt when malformed.
std::optional<long double> quantity_bytes(const std::string& quantity);

}  // namespace opctl::kinds::cluster
