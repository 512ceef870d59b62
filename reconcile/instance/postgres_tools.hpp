// The PostgreSQL programs the instance manager runs to completion (initdb,
// pg_basebackup, pg_rewind, pg_controldata, psql), with their errors turned
// into InstanceError carrying the program's own last words. Passwords travel
// through stdin or the passfile, never on a command line.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "instance/instance_identity.hpp"

namespace opctl::instance {

using Row = std::vector<std::string>;

class PostgresTools {
 public:
  explicit PostgresTools(InstanceIdentity identity) : identity_(std::move(identity)) {}

  // initdb with data checksums and scram-sha-256; the superuser's password from stdin.
  void initdb(const std::string& directory, const std::string& superuser_password) const;
  // Clones the primary into `directory` over a replication connection.
  void base_backup(const std::string& directory) const;
  // Rewinds the local data directory to follow the primary; true when something was rewound.
  bool rewind() const;
  // "Database cluster state" of pg_controldata ("in production", "shut down in recovery", ...).
  std::string cluster_state() const;

  // Runs `sql` on the local server as the superuser, through the Unix socket;
  // `variables` are psql variables, for values quoted with :'name'. Rows are
  // the result of the last statement, fields split on tabs.
  std::vector<Row> query(const std::string& sql, const std::map<std::string, std::string>& variables = {},
                         const std::string& database = "postgres") const;
  // Runs `sql` on the primary (through the -rw Service) as the superuser.
  std::vector<Row> query_primary(const std::string& sql) const;

 private:
  std::vector<Row> psql(std::vector<std::string> connection, const std::string& sql,
                        const std::map<std::string, std::string>& variables) const;
  std::string run(const std::vector<std::string>& argv, const std::string& input,
                  std::chrono::milliseconds timeout, const char* what) const;

  InstanceIdentity identity_;
};

}  // namespace opctl::instance
