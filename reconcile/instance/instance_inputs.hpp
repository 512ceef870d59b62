// What the instance manager reads from outside (the role the reconcile pass
// gives it, the passwords, the other instances) and what it reports back.
// InstanceEnvironment is where they come from: the Kubernetes API in a Pod
// (kube_environment.hpp), plain values in the loopback tests.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "instance/leadership.hpp"
#include "instance/store_backups.hpp"
#include "kinds/cluster/managed_objects.hpp"
#include "kinds/cluster/postgres_configuration.hpp"

namespace opctl::instance {

struct Credentials {
  std::string superuser_password;
  std::string app_user;
  std::string app_password;
  std::string app_database;
  std::string replication_password;

  bool complete() const {
    return !superuser_password.empty() && !app_user.empty() && !app_password.empty() &&
           !app_database.empty() && !replication_password.empty();
  }
  bool operator==(const Credentials&) const = default;
};

// A Secret spec.managed.roles takes a password from, as last read.
struct RolePassword {
  std::string version;  // its uid and resourceVersion: a new one is applied again
  std::string username;
  std::string password;
  std::string problem;  // why it cannot be used (missing, unreadable, no password); never the value

  bool operator==(const RolePassword&) const = default;
};

// The certificate and key PostgreSQL serves, and the CA that signed it (replicas verify
// the primary against it, and it verifies client certificates), all PEM.
struct TlsMaterial {
  std::string certificate;
  std::string key;
  std::string ca;
  bool operator==(const TlsMaterial&) const = default;
};

// Where another instance's PostgreSQL answers (its Pod's IP).
struct PeerAddress {
  std::string name;
  std::string host;
  int port = 5432;
  bool reporting = true;  // its manager reported within the last 30 s
};

struct Inputs {
  // The instance the Cluster wants as its primary (status.targetPrimary,
  // written by the pass). Who IS the primary is the primary Lease's holder
  // (leadership.hpp); a holder that is not the target hands the Lease over
  // (a switchover), and only the target bootstraps a new Cluster.
  std::string target_primary;
  // The primary the pass last recorded (status.currentPrimary). A holder
  // hands over only when the pass recorded it as the primary and then named
  // another target: after a failover without a pass the target is stale (the
  // old primary), and must not pull the Lease back when that one returns.
  std::string current_primary;
  bool being_deleted = false;          // the Pod has a deletionTimestamp
  std::vector<std::string> peers;      // the Cluster's other instances (Pods not being deleted)
  std::vector<PeerAddress> addresses;  // the peers that have an address
  // Every instance with a volume (the Cluster's status.instanceNames), whether
  // its Pod runs or not: a replica whose Pod is briefly gone (a rolling
  // update, an eviction) keeps its replication slot, so its WAL stays.
  std::vector<std::string> members;
  std::optional<Credentials> credentials;
  // The Cluster has had a primary (status.currentPrimary): its database
  // exists, and an instance without data never starts an empty one in its place.
  bool primary_recorded = false;
  // The Cluster's metadata.uid: whose WAL archive is whose (a Cluster restored
  // from another keeps its database system identifier, not its uid).
  std::string cluster_uid;
  int min_sync_replicas = 0;
  int max_sync_replicas = 0;
  std::chrono::seconds failover_delay{0};
  LeaseTimings lease_timings;
  // opctl.io/fenced-instances, parsed; `fencing_problem` says why the value
  // cannot be read (then `fenced` is empty and the manager keeps the last good one).
  kinds::cluster::FencedInstances fenced;
  std::string fencing_problem;
  bool hibernation = false;  // opctl.io/hibernation: "on" (the pass stops the Pods, primary last)
  // spec.postgresql and spec.enableSuperuserAccess.
  kinds::cluster::PostgresConfiguration configuration;
  // spec.managed, and the Secrets its roles name (by Secret name); the primary applies them.
  kinds::cluster::ManagedObjects managed;
  std::map<std::string, RolePassword> role_passwords;
  // opctl.io/reload (`opctl cluster reload`): a new value asks for a reload.
  std::string reload_request;
  // The server certificate (spec.certificates); nullopt until its Secret exists (or can be read).
  std::optional<TlsMaterial> tls;
  // Backup Jobs asking for a base backup to the object store (their Pods, running, oldest first); read
  // only when this instance has a backup command.
  std::vector<BackupRequest> backup_requests;
};

// What PostgreSQL is doing right now, as the Pod's annotations say it.
struct InstanceReport {
  std::string role;          // primary | replica | stopped | fenced
  std::string current_lsn;   // primary: pg_current_wal_lsn()
  std::string received_lsn;  // replica: pg_last_wal_receive_lsn()
  std::string replay_lsn;    // replica: pg_last_wal_replay_lsn()
  std::string timeline;
  bool streaming = false;  // replica: the WAL receiver is streaming
  std::string error;       // why the instance cannot serve its role; empty when fine
  // configuration_hash() of the configuration PostgreSQL has loaded; empty while unknown.
  std::string config_hash;
  std::string pending_restart;  // the loaded parameters that wait for a restart, comma-separated
  // Of those, the ones lowered that a standby may not have below its primary's, comma-separated.
  std::string pending_decrease;
  // The primary: what it did with spec.managed (ManagedReport::to_text()); empty elsewhere.
  std::string managed;
  // A primary: its replication slots, standbys (pg_stat_replication) and
  // archiver (pg_stat_archiver), as compact JSON; empty otherwise.
  std::string replication;
  // StoreBackups::report(): what became of each backup request; empty when none.
  std::string backup_requests;
  bool operator==(const InstanceReport&) const = default;
};

class InstanceEnvironment {
 public:
  virtual ~InstanceEnvironment() = default;
  // The current inputs; throws (an opctl::Error) when they cannot be read.
  virtual Inputs observe() = 0;
  virtual void report(const InstanceReport& report) = 0;
};

}  // namespace opctl::instance
