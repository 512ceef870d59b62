#include "instance/postgres_tools.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "instance/instance_error.hpp"
#include "instance/postgres_settings.hpp"
#include "process/child_process.hpp"

namespace opctl::instance {
namespace {

using namespace std::chrono_literals;

// The last lines of a program's stderr: enough to say why, short enough for an annotation.
std::string last_words(const std::string& err) {
  std::string text = err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  if (text.size() > 400) text = "..." + text.substr(text.size() - 400);
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : text) {
    if (c == separator) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

}  // namespace

std::string PostgresTools::run(const std::vector<std::string>& argv, const std::string& input,
                               std::chrono::milliseconds timeout, const char* what) const {
  process::ProcessOptions options;
  options.timeout = timeout;
  options.input = input;
  options.extra_env = {{"PGPASSFILE", passfile_path(identity_)}, {"PGCONNECT_TIMEOUT", "5"}, {"LC_ALL", "C"}};
  // pg_basebackup and pg_rewind reach the primary: verified as the replicas' streaming is.
  if (!primary_ca_file_.empty()) {
    options.extra_env["PGSSLMODE"] = "verify-full";
    options.extra_env["PGSSLROOTCERT"] = primary_ca_file_;
  }
  process::ProcessResult result = process::run_process(argv, options);
  if (result.timed_out)
    throw InstanceError(fmt::format("{} did not finish in {}s", what, timeout.count() / 1000));
  if (result.exit_code != 0)
    throw InstanceError(
        fmt::format("{} failed (exit {}): {}", what, result.exit_code, last_words(result.err)));
  return result.out;
}

void PostgresTools::initdb(const std::string& directory, const std::string& superuser_password) const {
  std::string password_file = identity_.run_dir + "/initdb-password";
  {
    std::ofstream out(password_file, std::ios::trunc);
    out << superuser_password << "\n";
  }
  std::filesystem::permissions(password_file,
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  try {
    run({"initdb", "--pgdata", directory, "--data-checksums", "--encoding", "UTF8", "--locale", "C",
         "--username", k_superuser, "--pwfile", password_file, "--auth-local", "trust", "--auth-host",
         "scram-sha-256"},
        "", 300s, "initdb");
  } catch (const InstanceError&) {
    std::filesystem::remove(password_file);
    throw;
  }
  std::filesystem::remove(password_file);
}

void PostgresTools::base_backup(const std::string& directory) const {
  run({"pg_basebackup", "--pgdata", directory, "--host", identity_.primary_host, "--port",
       std::to_string(identity_.primary_port), "--username", k_replication_user, "--wal-method", "stream",
       "--checkpoint", "fast", "--no-password"},
      "", 3600s, "pg_basebackup from the primary");
}

bool PostgresTools::rewind() const {
  std::string source = fmt::format("host={} port={} user={} dbname=postgres passfile={} connect_timeout=5",
                                   conninfo_value(identity_.primary_host), identity_.primary_port,
                                   k_superuser, conninfo_value(passfile_path(identity_)));
  std::string out = run({"pg_rewind", "--target-pgdata", identity_.pgdata, "--source-server", source}, "",
                        3600s, "pg_rewind from the primary");
  return out.find("no rewind required") == std::string::npos;
}

std::string PostgresTools::control_field(const std::string& key) const {
  std::string out = run({"pg_controldata", identity_.pgdata}, "", 30s, "pg_controldata");
  for (const auto& line : split(out, '\n')) {
    if (line.rfind(key + ":", 0) == 0) {
      std::string value = line.substr(key.size() + 1);
      value.erase(0, value.find_first_not_of(' '));
      return value;
    }
  }
  throw InstanceError("pg_controldata printed no " + key);
}

std::vector<std::pair<std::string, std::string>> PostgresTools::standby_floor(
    const std::string& config_file) const {
  // pg_controldata's names for them. Not max_wal_senders: opctl sets it on every command line, the same
  // everywhere (the files' value, which postgres -C reads, is not the one that runs).
  const std::pair<const char*, const char*> k_recorded[] = {
      {"max_connections", "max_connections setting"},
      {"max_worker_processes", "max_worker_processes setting"},
      {"max_prepared_transactions", "max_prepared_xacts setting"},
      {"max_locks_per_transaction", "max_locks_per_xact setting"}};
  std::vector<std::pair<std::string, std::string>> floor;
  for (const auto& [name, key] : k_recorded) {
    try {
      long recorded = std::stol(control_field(key));
      // What the files give, as the server would read them (postgres -C reads them and exits).
      long configured =
          std::stol(run({"postgres", "-D", identity_.pgdata, "-c", "config_file=" + config_file, "-C", name},
                        "", 30s, "postgres -C"));
      if (recorded > configured) floor.emplace_back(name, std::to_string(recorded));
    } catch (const std::exception&) {
      // Unknown: the server decides (it refuses to replay below the primary's values, and says so).
    }
  }
  return floor;
}

std::string PostgresTools::cluster_state() const {
  return control_field("Database cluster state");
}

std::string PostgresTools::checkpoint_location() const {
  return control_field("Latest checkpoint location");
}

PgConnection PostgresTools::connect_peer(const std::string& host, int port) const {
  ConnectionSettings settings;
  settings.host = host;
  settings.port = port;
  settings.user = k_superuser;
  settings.passfile = passfile_path(identity_);
  settings.connect_timeout = std::chrono::seconds(2);
  settings.statement_timeout = std::chrono::milliseconds(2000);
  return PgConnection(settings, "the instance at " + host);
}

PgConnection PostgresTools::connect_local(const std::string& database) const {
  ConnectionSettings settings;
  settings.host = socket_dir(identity_);
  settings.port = identity_.port;
  settings.user = k_superuser;
  settings.database = database;
  return PgConnection(settings, "the local server");
}

PgConnection PostgresTools::connect_primary() const {
  ConnectionSettings settings;
  settings.host = identity_.primary_host;
  settings.port = identity_.primary_port;
  settings.user = k_superuser;
  settings.passfile = passfile_path(identity_);
  if (!primary_ca_file_.empty()) {
    settings.sslmode = "verify-full";
    settings.sslrootcert = primary_ca_file_;
  }
  return PgConnection(settings, "the primary");
}

PrimaryTlsCheck PostgresTools::check_primary_tls(const std::string& ca_file) const {
  ConnectionSettings settings;
  settings.host = identity_.primary_host;
  settings.port = identity_.primary_port;
  settings.user = k_superuser;
  settings.passfile = passfile_path(identity_);
  settings.sslmode = "verify-full";
  settings.sslrootcert = ca_file;
  try {
    PgConnection(settings, "the primary");
    return {PrimaryTls::verified, ""};
  } catch (const InstanceError& failure) {
    std::string message = failure.what();
    auto says = [&](const char* text) { return message.find(text) != std::string::npos; };
    // libpq's words: the TLS handshake's outcome comes before authentication, whose failure
    // (a password, a pg_hba rule) still means the certificate verified.
    if (says("does not support SSL")) return {PrimaryTls::not_offered, message};
    if (says("certificate") || says("SSL error")) return {PrimaryTls::unverified, message};
    if (says("authentication failed") || says("no pg_hba.conf entry") || says("rejects connection"))
      return {PrimaryTls::verified, ""};
    return {PrimaryTls::unreachable, message};
  }
}

std::vector<Row> PostgresTools::query(const std::string& sql,
                                      const std::vector<std::string>& parameters) const {
  return connect_local().query(sql, parameters);
}

std::vector<Row> PostgresTools::query_primary(const std::string& sql) const {
  return connect_primary().query(sql);
}

}  // namespace opctl::instance
