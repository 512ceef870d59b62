// The instance manager: runs PostgreSQL in the role the reconcile pass gives
// this instance, the way CloudNativePG's instance manager does. Level-based
// like the pass: every step() looks at the inputs and at PostgreSQL and takes
// the one next action (initdb, clone, rewind, start, promote, demote, sync
// roles, slots and synchronous standbys), then reports. The caller (PID 1 of
// the container, or a loopback test) calls step() every second or so.
//
// Data is never destroyed: initdb runs only for a Cluster that never had a
// primary, on a volume that never held data, into an empty data directory;
// a data directory that must give way to a clone (diverged, or without
// PG_VERSION on a replica) is set aside under a new name, every generation
// kept.
//
// Two writable primaries are ruled out by the primary Lease (lease_keeper.hpp):
// PostgreSQL runs writable only on the Lease's holder, which takes it with a
// conditional write before it starts PostgreSQL on a primary's data or
// promotes a standby; a holder that cannot renew in time stops PostgreSQL at
// once (and the watchdog does if the manager cannot), before any candidate
// may take over; a candidate takes an expired Lease only when it is the
// furthest of the instances that answer and, with synchronous replication,
// enough of the synchronous standbys answered (leadership.hpp). A switchover
// hands the Lease to the target only after the old primary stopped and the
// target received its last WAL.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "instance/instance_identity.hpp"
#include "instance/instance_inputs.hpp"
#include "instance/lease_keeper.hpp"
#include "instance/managed_sync.hpp"
#include "instance/postgres_server.hpp"
#include "instance/postgres_tools.hpp"
#include "instance/store_backups.hpp"

namespace opctl::instance {

struct ManagerOptions {
  // A replica that has not streamed for this long while the primary answers
  // has diverged from it (a timeline it cannot follow): it is stopped and rewound.
  std::chrono::seconds stream_grace{15};
  // pg_rewind failures in a row, or rewinds after which the replica still
  // could not stream, before the data directory is set aside and cloned anew.
  int rewinds_before_reclone = 3;
  // Free bytes on the filesystem holding `directory` (the data volume); a
  // test may stand in for a full volume, which it cannot make for real.
  std::function<std::uintmax_t(const std::string& directory)> free_bytes;
};

class InstanceManager {
 public:
  InstanceManager(InstanceIdentity identity, InstanceEnvironment& environment, LeaseKeeper& lease,
                  ManagerOptions options = {});

  // One observation and at most one action; never throws an opctl::Error
  // (failures become the reported error and are retried on the next step).
  void step();
  // SIGTERM: stop serving (not Ready), smart shutdown, fast after `smart_timeout`;
  // then a primary frees the Lease, so the furthest replica takes it at once.
  void shut_down(std::chrono::milliseconds smart_timeout, std::chrono::milliseconds fast_timeout);

  // Serving its role: a primary accepting writes, a replica streaming.
  bool ready() const { return ready_; }
  // Set when PostgreSQL died under the manager: the caller exits non-zero,
  // so the kubelet restarts the container and the pass can fail over meanwhile.
  const std::optional<std::string>& fatal() const { return fatal_; }
  const InstanceReport& last_report() const { return report_; }
  // The Pod is being deleted (as last observed): the caller shuts down as on SIGTERM.
  bool being_deleted() const { return inputs_ && inputs_->being_deleted; }
  PostgresServer& server() { return server_; }
  // Reaps every exited child without blocking (PID 1 inherits orphans too): the server, a base backup,
  // anything else.
  void reap_children();

 private:
  struct LocalState {
    bool in_recovery = false;
    std::string current_lsn, received_lsn, replay_lsn, timeline;
    bool streaming = false;
  };

  void act(Inputs inputs);
  // The credentials to use: the observed ones when usable, else the last
  // usable ones (a bad Secret is reported, never half-applied).
  std::optional<Credentials> usable(const std::optional<Credentials>& observed);
  void bootstrap_primary(const Inputs& inputs);
  // Why initdb must not run here, or nullopt when this is a new Cluster's first primary on a new volume.
  std::optional<std::string> initdb_refusal(const Inputs& inputs) const;
  void clone_replica();
  // Moves the data directory aside as "<pgdata>.<why>-<UTC time>"; returns the new name.
  std::string set_aside(const std::string& why) const;
  // Sets the data directory aside (every generation kept) and throws `reason`: the next step clones anew.
  [[noreturn]] void set_aside_to_clone(const std::string& why, const std::string& reason);
  // The volume has held a database: a marker next to the data directory (not in it).
  void mark_volume_used();
  std::string volume_marker() const;
  void start(const Inputs& inputs, const LeaseRecord& lease);
  // Takes the Lease as `seen`; false (and why, reported) when another instance was first.
  bool take_lease(const LeaseRecord& seen);
  // Lost the Lease while writable: stop at once (immediate), throw why.
  [[noreturn]] void fence(const std::string& why);
  void promote();
  // Named in opctl.io/fenced-instances: PostgreSQL stopped (fast, immediate
  // after a minute), the Pod kept, not Ready; a primary keeps renewing its Lease.
  void stay_fenced(const Inputs& inputs);
  // Whether to take an expired or free Lease now: asks every peer where it is.
  Candidacy candidacy(const Inputs& inputs, const LeaseRecord& lease, const LocalState& local);
  // Switchover: stop, wait until `target` received the last WAL, give it the Lease.
  void hand_over_to(const Inputs& inputs, const std::string& target);
  // `peer` answers as a standby that received WAL past `checkpoint` (a clean shutdown's last record).
  bool received_past(const Inputs& inputs, const std::string& peer, const std::string& checkpoint);
  std::optional<LocalState> peer_state(const PeerAddress& peer) const;
  void rewind_before_following();
  // Fast shutdown, immediate if that takes over a minute: no more writes, WAL sent to the standbys.
  void stop_at_once();
  void serve_primary(const Inputs& inputs, const LocalState& local);
  // A primary whose reload lowered a parameter its standbys must not have below its own
  // (pending_decrease_): PostgreSQL restarts here, the Lease held throughout, before any replica restarts.
  void restart_in_place(const Inputs& inputs, const LeaseRecord& lease);
  void serve_replica(const LocalState& local);
  // The synchronous standbys, each change published on the Lease before it takes effect.
  void sync_roles(PgConnection& db, const Credentials& credentials);
  void sync_slots(PgConnection& db, const Inputs& inputs);
  void sync_standby_names(PgConnection& db, const Inputs& inputs, const std::string& timeline);
  // The primary's replication slots, standbys and archiver, for the report (never fails the step).
  void read_replication(PgConnection& db);
  // Lets archive_command copy into the WAL archive only while it is this Cluster's (claiming it when
  // unmarked).
  void check_wal_archive(PgConnection& db, const Inputs& inputs);
  // The same for an object store: barman-cloud-check-wal-archive, once per Cluster (marked in PGDATA).
  void check_store_archive(const Inputs& inputs, const std::string& timeline);
  LocalState read_local_state() const;
  static LocalState read_state(PgConnection& db);
  bool primary_answers() const;
  bool primary_checkpointed_on_its_timeline() const;
  void write_passfile(const Credentials& credentials);
  // The server certificate's files from the observed Secret, once checked; true when they changed.
  bool write_tls(const std::optional<TlsMaterial>& observed);
  // Before this instance follows or clones: whether it verifies the primary (sslmode=verify-full)
  // or, when the primary offers no TLS or a certificate that does not verify, only prefers TLS.
  void choose_primary_verification();
  // pg_hba.conf for this role and the last inputs; true when its content changed.
  bool write_hba(bool serves_replication);
  // postgresql.conf from the last inputs; true when its content changed.
  bool write_conf();
  // Running: new parameters or access rules are written and reloaded; on the
  // step after a reload, what PostgreSQL loaded is read back (pending restarts,
  // invalid settings) and reported.
  void apply_configuration(PgConnection& db);
  bool has_data() const;
  bool data_is_standby() const;
  void send_report(const std::optional<LocalState>& local);
  // error_ as it may be published: no password, no control character.
  std::string published_error() const;

  InstanceIdentity identity_;
  InstanceEnvironment& environment_;
  LeaseKeeper& lease_;
  ManagerOptions options_;
  PostgresTools tools_;
  PostgresServer server_;
  ManagedSync managed_{tools_};  // spec.managed, applied while this instance is the primary
  StoreBackups store_backups_{identity_.backup_command, identity_.run_dir + "/store-backup.log"};

  std::optional<Inputs> inputs_;  // the last inputs read
  std::string replication_;       // read_replication()'s JSON text; empty until read
  std::optional<Credentials> passfile_credentials_;
  std::optional<Credentials> synced_credentials_;  // what the primary last set in PostgreSQL
  std::optional<Credentials> usable_credentials_;  // the last observed credentials that passed the checks
  std::string credentials_problem_;                // why the observed ones did not, reported
  std::string archive_problem_;                    // why nothing is archived, reported
  // When check_store_archive may run the check again after it failed (at most once a minute).
  std::optional<std::chrono::steady_clock::time_point> store_check_after_;
  std::string lease_problem_;       // why this instance does not take the Lease, when a failover waits
  std::string switchover_problem_;  // why a switchover waits
  std::string fencing_problem_;     // why opctl.io/fenced-instances cannot be read, reported
  kinds::cluster::FencedInstances fencing_;  // the last readable opctl.io/fenced-instances
  bool fenced_ = false;                      // this instance is fenced: it reports role "fenced"
  std::string config_problem_;               // settings PostgreSQL refused (pg_file_settings), reported
  std::optional<TlsMaterial> written_tls_;   // what the TLS files hold; nullopt: no TLS yet
  std::string tls_problem_;                  // why the observed certificate is not served, reported
  std::string primary_tls_problem_;          // why the primary is not verified, reported
  std::string primary_ca_file_;              // the CA file the primary is verified against; empty: not
  bool tls_reload_ = false;                  // new TLS files wait for a reload
  std::string written_conf_;                 // what postgresql.conf and pg_hba.conf hold now
  std::string written_hba_;
  bool serves_replication_ = false;  // the role pg_hba.conf was last written for
  std::string loaded_hash_;          // configuration_hash() PostgreSQL has loaded
  // The opctl.io/reload value acted upon; unset until the first inputs (a
  // manager that starts does not reload for a request made before it ran).
  std::optional<std::string> handled_reload_;
  std::string reloaded_hash_;     // reloaded, read back on the next step
  std::string pending_restart_;   // parameters waiting for a restart
  std::string pending_decrease_;  // of those, hot-standby-sensitive ones lowered
  bool may_write_ = false;        // PostgreSQL was started as a primary or promoted, and still runs
  bool volume_marked_ = false;
  bool needs_rewind_ = false;
  int rewind_failures_ = 0;
  int rewinds_without_streaming_ = 0;  // rewinds that ended without the replica streaming again
  std::optional<std::chrono::steady_clock::time_point> not_streaming_since_;
  std::chrono::steady_clock::time_point started_at_{};
  bool ready_ = false;
  std::string error_;
  std::optional<std::string> fatal_;
  InstanceReport report_;
};

}  // namespace opctl::instance
