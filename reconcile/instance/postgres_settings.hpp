// What the instance manager tells PostgreSQL: the command line (per-instance
// settings live there, not in PGDATA, because pg_basebackup and pg_rewind
// copy configuration files between instances), the host-based access rules,
// and the names of replication slots and synchronous standbys.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "instance/instance_identity.hpp"
#include "instance/leadership.hpp"
#include "kinds/cluster/postgres_configuration.hpp"

namespace opctl::instance {

inline constexpr const char* k_replication_user = "streaming_replica";
inline constexpr const char* k_superuser = "postgres";
// Slots the manager owns carry this prefix; it never touches others.
inline constexpr const char* k_slot_prefix = "_opctl_";

std::string socket_dir(const InstanceIdentity& identity);
std::string hba_path(const InstanceIdentity& identity);
std::string passfile_path(const InstanceIdentity& identity);
// The postgresql.conf PostgreSQL reads (config_file): in the run directory,
// written by the manager from spec.postgresql.parameters.
std::string config_path(const InstanceIdentity& identity);

// The TLS files PostgreSQL serves (ssl_cert_file, ssl_key_file, ssl_ca_file): in the run
// directory, written by the manager from the server certificate's Secret (owned by PostgreSQL's
// user, the key 0600, as PostgreSQL requires; never in PGDATA, which pg_basebackup copies).
std::string tls_certificate_path(const InstanceIdentity& identity);
std::string tls_key_path(const InstanceIdentity& identity);
std::string tls_ca_path(const InstanceIdentity& identity);

// The replication slot a replica streams through: "db-2" -> "_opctl_db_2".
std::string slot_name(const std::string& instance);

// Connection string to the primary, with the password from the passfile:
// sslmode=verify-full against `ssl_root_certificate` (a CA file), or
// sslmode=prefer without one (TLS when the primary offers it, unverified).
std::string primary_conninfo(const InstanceIdentity& identity, const std::string& user,
                             const std::string& database, const std::string& ssl_root_certificate = "");

// `postgres` and its arguments; `standby` adds what a replica streams with
// (verifying the primary against `ssl_root_certificate` when not empty).
// What opctl owns goes here (the command line wins over every file); what
// the user may change is in postgresql_conf().
std::vector<std::string> postgres_command(const InstanceIdentity& identity, bool standby,
                                          const std::string& ssl_root_certificate = "");

// The content of config_path(): initdb's postgresql.conf from the data
// directory (its locale and time zone settings), then opctl's defaults a
// user may override (shared_buffers, wal_keep_size, hot_standby_feedback),
// then spec.postgresql.parameters, last so they win. Refused parameters are
// left out even if present (the pass refuses them first).
// With `tls`, ssl = on and the TLS files (reloadable: a new certificate is a reload away).
std::string postgresql_conf(const InstanceIdentity& identity,
                            const std::map<std::string, std::string>& parameters, bool tls = false);
// A postgresql.conf value, single-quoted.
std::string conf_value(const std::string& value);

// A POSIX shell word for any text ('...' with ' as '\'').
std::string shell_quote(const std::string& text);
// The archive_command copying %p into `directory` as %f (atomically, by a
// rename); an existing %f with the same bytes counts as archived, one with
// other bytes fails the command, so PostgreSQL keeps the segment and retries.
// It fails too while `allowed` (a file the manager writes once it has checked
// that the archive belongs to this Cluster) does not exist.
std::string archive_command(const std::string& directory, const std::string& allowed);
// The archive_command running `argv` (barman-cloud-wal-archive and its
// options) with the segment's path appended, under the same `allowed` file;
// a literal % in a word is written %% (archive_command expands %p, %f).
std::string store_archive_command(const std::vector<std::string>& argv, const std::string& allowed);
// The file archive_command requires: in the run directory, never in PGDATA.
std::string archive_allowed_path(const InstanceIdentity& identity);

// What pg_hba.conf says besides whether this instance serves replication.
struct HbaOptions {
  std::vector<std::string> user_rules;  // spec.postgresql.pg_hba, in order
  bool superuser_access = true;         // spec.enableSuperuserAccess
  // The other instances' addresses: with superuser_access false, the only
  // hosts the superuser may log in from (pg_rewind, a failover's questions).
  std::vector<std::string> instance_hosts;
  bool require_ssl = false;  // spec.postgresql.requireSSL: TCP without TLS is rejected first
};

// pg_hba.conf, first rule that matches wins: local (Unix socket) trust for
// the manager (only processes of this container's user can open the socket:
// its directory is 0700); with require_ssl, every TCP connection without TLS
// rejected; replication for the replication role only on a
// primary (`serves_replication`); with superuser access disabled, the
// superuser only from the instances; then the user's rules; then
// scram-sha-256 for everyone else. opctl's rules that keep the Cluster
// working come before the user's, as CloudNativePG's do.
std::string hba_rules(bool serves_replication, const HbaOptions& options = {});

// synchronous_standby_names for `peers` (the other instances): "ANY n (...)"
// with n = the streaming standbys clamped to [min_sync, max_sync]; empty
// (asynchronous) when max_sync is 0, there is no peer, or n is 0 (min_sync 0
// and no standby streaming), as CloudNativePG does.
std::string synchronous_standby_names(const std::vector<std::string>& peers, int streaming, int min_sync,
                                      int max_sync);

// A libpq connection-string value, quoted when it needs to be.
std::string conninfo_value(const std::string& value);
// A SQL identifier, double-quoted.
std::string quote_identifier(const std::string& name);
// What a synchronous_standby_names written by synchronous_standby_names()
// guarantees: each commit acknowledged by `required` of `names`. Any other
// form (FIRST, "*") or an empty value: no guarantee (required 0).
SyncQuorum sync_quorum_of(const std::string& setting);
// During a change from `in_force` to `next`: what holds for every commit
// acknowledged under either (published before the change takes effect).
SyncQuorum sync_quorum_union(const SyncQuorum& in_force, const SyncQuorum& next);

}  // namespace opctl::instance
