// One libpq connection to PostgreSQL, the only way the instance manager talks
// SQL: values travel as parameters (never spliced into the statement text),
// connection settings as keyword/value pairs (never a quoted conninfo
// string), and a failure becomes an InstanceError whose message is safe to
// publish (SQLSTATE and the server's primary message, control characters
// removed, never a parameter's value).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct pg_conn;

namespace opctl::instance {

using Row = std::vector<std::string>;

// A result with its column names (the exporter's custom queries map columns by name).
struct Table {
  std::vector<std::string> columns;
  std::vector<Row> rows;
};

struct ConnectionSettings {
  std::string host;  // a host name, an address, or a Unix socket directory
  int port = 5432;
  std::string user;
  std::string database = "postgres";
  std::string passfile;  // where the password comes from; empty: none (local trust)
  std::string application_name = "opctl-instance";
  std::chrono::seconds connect_timeout{5};
  // A statement that runs longer is cancelled by the server (0: no limit).
  std::chrono::milliseconds statement_timeout{10'000};
  // The manager's own writes (roles, slots, settings) never wait for
  // synchronous standbys: a new primary's standbys are not streaming yet.
  bool local_commit = true;
  // libpq's sslmode and sslrootcert; empty: libpq's defaults (prefer, ~/.postgresql/root.crt).
  std::string sslmode;
  std::string sslrootcert;
};

class PgConnection {
 public:
  // Connects; throws InstanceError naming `what` (e.g. "the local server") on failure.
  PgConnection(const ConnectionSettings& settings, const std::string& what);
  PgConnection(PgConnection&&) noexcept;
  PgConnection& operator=(PgConnection&&) noexcept;
  ~PgConnection();

  // Runs one statement with $1, $2, ... bound to `parameters` (text); the rows
  // of its result, NULL as "". Throws InstanceError when it fails.
  std::vector<Row> query(const std::string& sql, const std::vector<std::string>& parameters = {});
  // The same, with the result's column names.
  Table table(const std::string& sql, const std::vector<std::string>& parameters = {});
  // The first field of the first row, or "" when there is none.
  std::string value(const std::string& sql, const std::vector<std::string>& parameters = {});

  // Quoting for the few statements that take no parameters (ALTER ROLE,
  // ALTER SYSTEM, CREATE DATABASE): libpq's own escaping for this connection.
  std::string literal(const std::string& text);
  std::string identifier(const std::string& name);
  // A SCRAM-SHA-256 verifier of `password` for `user`, computed here (libpq's
  // PQencryptPasswordConn): the password itself never reaches the server.
  std::string scram_verifier(const std::string& password, const std::string& user);

 private:
  struct Closer {
    void operator()(pg_conn* connection) const;
  };
  std::unique_ptr<pg_conn, Closer> connection_;
  std::string what_;
};

// The server's or libpq's message as it may be published: control
// characters turned into spaces, at most 500 characters.
std::string publishable_message(const std::string& text);

}  // namespace opctl::instance
