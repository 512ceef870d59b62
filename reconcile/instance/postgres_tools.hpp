// The PostgreSQL programs the instance manager runs to completion (initdb,
// pg_basebackup, pg_rewind, pg_controldata), with their errors turned into
// InstanceError carrying the program's own last words, and its SQL
// connections (libpq, pg_connection.hpp) to the local server and the primary.
// Passwords travel through a private file or the passfile, never on a command
// line or in a statement's text.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "instance/instance_identity.hpp"
#include "instance/pg_connection.hpp"

namespace opctl::instance {

// What a TLS connection to the primary, verified against the Cluster's CA, showed.
enum class PrimaryTls {
  verified,     // the primary's certificate verifies for the -rw name
  not_offered,  // the primary serves no TLS (an instance from before TLS)
  unverified,   // it offers TLS with a certificate that does not verify (the message says why)
  unreachable,  // no answer: nothing learned
};
struct PrimaryTlsCheck {
  PrimaryTls result = PrimaryTls::unreachable;
  std::string message;
};

class PostgresTools {
 public:
  explicit PostgresTools(InstanceIdentity identity) : identity_(std::move(identity)) {}

  // From now on pg_basebackup, pg_rewind and connections to the primary use
  // sslmode=verify-full against this CA file; empty: libpq's default (prefer).
  void verify_primary_with(std::string ca_file) { primary_ca_file_ = std::move(ca_file); }
  // Connects to the primary with sslmode=verify-full against `ca_file`.
  PrimaryTlsCheck check_primary_tls(const std::string& ca_file) const;

  // initdb with data checksums and scram-sha-256; the superuser's password from a private file.
  void initdb(const std::string& directory, const std::string& superuser_password) const;
  // Clones the primary into `directory` over a replication connection.
  void base_backup(const std::string& directory) const;
  // Rewinds the local data directory to follow the primary; true when something was rewound.
  bool rewind() const;
  // "Database cluster state" of pg_controldata ("in production", "shut down in recovery", ...).
  std::string cluster_state() const;
  // "Latest checkpoint location" of pg_controldata: after a clean shutdown, the last WAL record written.
  std::string checkpoint_location() const;

  // The settings a standby must hold at least at its primary's values, where pg_control (the primary's
  // values as last replayed) is above what `config_file` gives: {name, value} to start with instead.
  std::vector<std::pair<std::string, std::string>> standby_floor(const std::string& config_file) const;

  // A connection to the local server as the superuser, through the Unix socket.
  PgConnection connect_local(const std::string& database = "postgres") const;
  // A connection to the primary (through the -rw Service) as the superuser, password from the passfile.
  PgConnection connect_primary() const;
  // A connection to another instance (its Pod's address) as the superuser, timing out within seconds.
  PgConnection connect_peer(const std::string& host, int port) const;
  // One statement on the local server ($1, $2, ... bound to `parameters`).
  std::vector<Row> query(const std::string& sql, const std::vector<std::string>& parameters = {}) const;
  // One statement on the primary.
  std::vector<Row> query_primary(const std::string& sql) const;

 private:
  std::string control_field(const std::string& key) const;
  std::string run(const std::vector<std::string>& argv, const std::string& input,
                  std::chrono::milliseconds timeout, const char* what) const;

  InstanceIdentity identity_;
  std::string primary_ca_file_;
};

}  // namespace opctl::instance
