#include "instance/metrics_collector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "instance/postgres_settings.hpp"
#include "model/error.hpp"

namespace opctl::instance {
namespace {

using namespace std::chrono_literals;

constexpr const char* k_application_name = "opctl-metrics";

std::optional<double> sample_number(const std::string& text) {
  if (text.empty()) return std::nan("");  // NULL, as postgres_exporter reports it
  if (text == "t") return 1.0;
  if (text == "f") return 0.0;
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE) return std::nullopt;
  return value;
}

double number_or_nan(const std::string& text) {
  return sample_number(text).value_or(std::nan(""));
}

// One scrape: its families, the connections it opened (one per database),
// and what each query it ran came to.
class Scrape {
 public:
  Scrape(const CollectorOptions& options, ScrapeErrors& errors) : options_(options), errors_(errors) {
    families_.declare("opctl_collector_up", MetricType::gauge,
                      "1 when the exporter could connect to this instance's PostgreSQL, else 0");
    families_.declare("opctl_collector_last_error", MetricType::gauge,
                      "1 when the query (a default one, a custom query, or a custom queries file) failed in "
                      "this scrape, else 0");
  }

  std::string run() {
    bool up = connect("postgres") != nullptr;
    families_.add("opctl_collector_up", {}, up ? 1 : 0);
    if (up) collect_defaults();
    collect_custom();
    return families_.text();
  }

 private:
  PgConnection* connect(const std::string& database) {
    if (auto found = connections_.find(database); found != connections_.end()) return found->second.get();
    ConnectionSettings settings = options_.connection;
    settings.database = database;
    try {
      auto connection = std::make_unique<PgConnection>(settings, "the local server");
      return connections_.emplace(database, std::move(connection)).first->second.get();
    } catch (const Error& error) {
      errors_["connection"] = error.what();
      connections_.emplace(database, nullptr);
      return nullptr;
    }
  }

  void record(const std::string& query, const std::string& error) {
    families_.add("opctl_collector_last_error", {{"query", query}}, error.empty() ? 0 : 1);
    if (!error.empty()) errors_[query] = error;
  }

  // Runs one default query on the postgres database; its rows, or nullopt after recording the failure.
  std::optional<std::vector<Row>> rows(const char* query, const std::string& sql) {
    try {
      auto result = connect("postgres")->query(sql);
      record(query, "");
      return result;
    } catch (const Error& error) {
      record(query, error.what());
      return std::nullopt;
    }
  }

  void gauge(const char* name, const char* help, const MetricLabels& labels, double value,
             MetricType type = MetricType::gauge) {
    families_.declare(name, type, help);
    families_.add(name, labels, value);
  }

  void collect_defaults() {
    bool in_recovery = collect_server();
    collect_replica_lag();
    if (!in_recovery) collect_standbys();
    collect_archiver();
    collect_wal();
    collect_backends();
    collect_databases();
  }

  bool collect_server() {
    auto result = rows("server",
                       "SELECT pg_is_in_recovery(), extract(epoch FROM pg_postmaster_start_time()), "
                       "current_setting('max_connections')");
    if (!result || result->empty()) return false;
    const Row& row = result->front();
    gauge("opctl_pg_replication_in_recovery", "1 when the instance is a standby (in recovery), else 0", {},
          number_or_nan(row[0]));
    gauge("opctl_pg_postmaster_start_time_seconds", "when PostgreSQL started, in seconds since the epoch", {},
          number_or_nan(row[1]));
    gauge("opctl_pg_settings_max_connections", "max_connections of the running server", {},
          number_or_nan(row[2]));
    return row[0] == "t";
  }

  void collect_replica_lag() {
    // A replica that has replayed all it received is not behind, however old
    // its last transaction (an idle primary writes none).
    auto result = rows("replication",
                       "SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = "
                       "pg_last_wal_replay_lsn() THEN 0 ELSE GREATEST(0, COALESCE(extract(epoch FROM now() - "
                       "pg_last_xact_replay_timestamp()), 0)) END, "
                       "(SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming'), "
                       "COALESCE(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0)");
    if (!result || result->empty()) return;
    const Row& row = result->front();
    gauge("opctl_pg_replication_lag",
          "seconds since the last transaction a standby replayed, while it has received WAL it has not "
          "replayed; 0 on the primary",
          {}, number_or_nan(row[0]));
    gauge("opctl_pg_replication_is_wal_receiver_up", "1 when a standby's WAL receiver is streaming, else 0",
          {}, number_or_nan(row[1]));
    gauge("opctl_pg_replication_replay_lag_bytes",
          "WAL a standby received and has not replayed yet, in bytes", {}, number_or_nan(row[2]));
  }

  void collect_standbys() {
    auto result =
        rows("pg_stat_replication",
             "SELECT COALESCE(application_name, ''), COALESCE(host(client_addr), ''), "
             "COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), sent_lsn), 0), "
             "COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), write_lsn), 0), "
             "COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), flush_lsn), 0), "
             "COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0), "
             "COALESCE(extract(epoch FROM write_lag), 0), COALESCE(extract(epoch FROM flush_lag), 0), "
             "COALESCE(extract(epoch FROM replay_lag), 0), "
             "CASE WHEN state = 'streaming' THEN 1 ELSE 0 END "
             "FROM pg_stat_replication ORDER BY application_name, client_addr");
    if (!result) return;
    struct Column {
      const char* name;
      const char* help;
    };
    constexpr Column k_columns[] = {
        {"opctl_pg_stat_replication_sent_diff_bytes", "the primary's WAL position minus what it sent"},
        {"opctl_pg_stat_replication_write_diff_bytes",
         "the primary's WAL position minus what the standby wrote"},
        {"opctl_pg_stat_replication_flush_diff_bytes",
         "the primary's WAL position minus what the standby flushed"},
        {"opctl_pg_stat_replication_replay_diff_bytes",
         "the primary's WAL position minus what the standby replayed"},
        {"opctl_pg_stat_replication_write_lag_seconds", "pg_stat_replication.write_lag"},
        {"opctl_pg_stat_replication_flush_lag_seconds", "pg_stat_replication.flush_lag"},
        {"opctl_pg_stat_replication_replay_lag_seconds", "pg_stat_replication.replay_lag"},
        {"opctl_pg_stat_replication_streaming", "1 while the WAL sender streams to the standby, else 0"}};
    for (const Row& row : *result) {
      MetricLabels labels = {{"application_name", row[0]}, {"client_addr", row[1]}};
      for (std::size_t i = 0; i < std::size(k_columns); ++i)
        gauge(k_columns[i].name, k_columns[i].help, labels, number_or_nan(row[i + 2]));
    }
  }

  void collect_archiver() {
    auto result = rows("pg_stat_archiver",
                       "SELECT archived_count, failed_count, "
                       "COALESCE(extract(epoch FROM now() - last_archived_time), -1), "
                       "COALESCE(extract(epoch FROM now() - last_failed_time), -1), "
                       "COALESCE(extract(epoch FROM stats_reset), 0) FROM pg_stat_archiver");
    if (!result || result->empty()) return;
    const Row& row = result->front();
    gauge("opctl_pg_stat_archiver_archived_count", "WAL files archived", {}, number_or_nan(row[0]),
          MetricType::counter);
    gauge("opctl_pg_stat_archiver_failed_count", "failed attempts to archive a WAL file", {},
          number_or_nan(row[1]), MetricType::counter);
    gauge("opctl_pg_stat_archiver_seconds_since_last_archival",
          "seconds since the last WAL file was archived; -1 when none was", {}, number_or_nan(row[2]));
    gauge("opctl_pg_stat_archiver_seconds_since_last_failure",
          "seconds since the last failure to archive; -1 when none failed", {}, number_or_nan(row[3]));
    gauge("opctl_pg_stat_archiver_stats_reset_time",
          "when the archiver's statistics were reset (epoch seconds)", {}, number_or_nan(row[4]));
  }

  void collect_wal() {
    auto result = rows("pg_wal",
                       "SELECT (SELECT count(*) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$'), "
                       "(SELECT COALESCE(sum(size), 0) FROM pg_ls_waldir()), "
                       "(SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready'), "
                       "(SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.done')");
    if (!result || result->empty()) return;
    const Row& row = result->front();
    gauge("opctl_collector_pg_wal_segments", "WAL segment files in pg_wal", {}, number_or_nan(row[0]));
    gauge("opctl_collector_pg_wal_bytes", "the size of pg_wal's files, in bytes", {}, number_or_nan(row[1]));
    const char* help = "WAL segments waiting to be archived (ready) and archived (done), in archive_status";
    gauge("opctl_collector_wal_archive_status", help, {{"value", "ready"}}, number_or_nan(row[2]));
    gauge("opctl_collector_wal_archive_status", help, {{"value", "done"}}, number_or_nan(row[3]));
  }

  void collect_backends() {
    auto result =
        rows("pg_stat_activity",
             "SELECT COALESCE(datname, ''), COALESCE(usename, ''), COALESCE(application_name, ''), "
             "COALESCE(state, ''), count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
             "GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4");
    if (result)
      for (const Row& row : *result)
        gauge("opctl_backends_total", "client connections, by database, user, application and state",
              {{"datname", row[0]}, {"usename", row[1]}, {"application_name", row[2]}, {"state", row[3]}},
              number_or_nan(row[4]));
    auto waiting = rows("pg_locks", "SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted");
    if (waiting && !waiting->empty())
      gauge("opctl_backends_waiting_total", "backends waiting for a lock", {},
            number_or_nan(waiting->front()[0]));
  }

  void collect_databases() {
    auto result = rows("pg_database",
                       "SELECT datname, pg_database_size(oid), age(datfrozenxid) FROM pg_database "
                       "WHERE datallowconn ORDER BY datname");
    if (!result) return;
    for (const Row& row : *result) {
      gauge("opctl_pg_database_size_bytes", "the database's size on disk, in bytes", {{"datname", row[0]}},
            number_or_nan(row[1]));
      gauge("opctl_pg_database_xid_age", "transactions since the database's oldest unfrozen one",
            {{"datname", row[0]}}, number_or_nan(row[2]));
    }
  }

  std::vector<std::string> databases(const std::vector<std::string>& targets) {
    if (targets.empty()) return {"postgres"};
    if (std::find(targets.begin(), targets.end(), "*") == targets.end()) return targets;
    std::vector<std::string> out;
    for (const Row& row :
         connect("postgres")
             ->query("SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate "
                     "ORDER BY datname"))
      out.push_back(row[0]);
    return out;
  }

  // One custom query on one database, read-only: its rows never change anything.
  Table run_read_only(PgConnection& connection, const std::string& sql) {
    connection.query("BEGIN READ ONLY");
    try {
      Table table = connection.table(sql);
      connection.query("ROLLBACK");
      return table;
    } catch (const Error&) {
      try {
        connection.query("ROLLBACK");
      } catch (const Error&) {
      }
      throw;
    }
  }

  std::string run_custom(const CustomQuery& query, bool in_recovery) {
    if (!query.error.empty()) return query.error;
    if (query.primary_only && in_recovery) return "";
    MetricFamilies own;
    for (const std::string& database : databases(query.target_databases)) {
      PgConnection* connection = connect(database);
      if (connection == nullptr) return fmt::format("cannot connect to database {}", database);
      Table table = run_read_only(*connection, query.sql);
      std::string labelled = query.target_databases.empty() ? "" : database;
      if (auto error = custom_query_metrics(query, table, labelled, own); !error.empty()) return error;
    }
    return families_.merge(own);
  }

  void collect_custom() {
    auto queries = load_custom_queries(options_.queries_dir);
    if (queries.empty()) return;
    PgConnection* connection = connect("postgres");
    bool in_recovery = false;
    if (connection != nullptr) {
      try {
        in_recovery = connection->value("SELECT pg_is_in_recovery()") == "t";
      } catch (const Error&) {
        connection = nullptr;
      }
    }
    for (const CustomQuery& query : queries) {
      std::string error = query.error;
      if (error.empty() && connection == nullptr) error = "PostgreSQL does not answer";
      if (error.empty()) {
        try {
          error = run_custom(query, in_recovery);
        } catch (const Error& failure) {
          error = failure.what();
        }
      }
      record(query.name, error);
    }
  }

  const CollectorOptions& options_;
  ScrapeErrors& errors_;
  MetricFamilies families_;
  std::map<std::string, std::unique_ptr<PgConnection>> connections_;
};

std::optional<std::size_t> column_index(const Table& table, const std::string& name) {
  for (std::size_t i = 0; i < table.columns.size(); ++i)
    if (table.columns[i] == name) return i;
  return std::nullopt;
}

}  // namespace

std::string custom_query_metrics(const CustomQuery& query, const Table& result, const std::string& database,
                                 MetricFamilies& families) {
  std::vector<std::pair<const QueryColumn*, std::size_t>> labels, values;
  for (const QueryColumn& column : query.columns) {
    if (column.usage == ColumnUsage::discard) continue;
    auto index = column_index(result, column.name);
    if (!index) return fmt::format("column {} is not in the query's result", column.name);
    (column.usage == ColumnUsage::label ? labels : values).emplace_back(&column, *index);
  }
  for (const auto& [column, index] : values) {
    std::string name = fmt::format("opctl_{}_{}", query.name, column->name);
    std::string help = column->description.empty()
                           ? fmt::format("{} of custom query {}", column->name, query.name)
                           : column->description;
    auto type = column->usage == ColumnUsage::counter ? MetricType::counter : MetricType::gauge;
    if (auto error = families.declare(name, type, help); !error.empty()) return error;
  }
  bool add_datname = !database.empty() && !column_index(result, "datname");
  for (const Row& row : result.rows) {
    MetricLabels row_labels;
    for (const auto& [column, index] : labels)
      row_labels.emplace_back(column->name, row[index]);
    if (add_datname) row_labels.emplace_back("datname", database);
    for (const auto& [column, index] : values) {
      auto value = sample_number(row[index]);
      if (!value) return fmt::format("column {}: \"{}\" is not a number", column->name, row[index]);
      std::string name = fmt::format("opctl_{}_{}", query.name, column->name);
      if (auto error = families.add(name, row_labels, *value); !error.empty()) return error;
    }
  }
  return "";
}

CollectorOptions collector_options(const InstanceIdentity& identity, const std::string& queries_dir) {
  CollectorOptions options;
  options.connection.host = socket_dir(identity);
  options.connection.port = identity.port;
  options.connection.user = k_superuser;
  options.connection.application_name = k_application_name;
  options.connection.connect_timeout = 3s;
  options.connection.statement_timeout = 5000ms;
  options.connection.local_commit = false;
  options.queries_dir = queries_dir;
  return options;
}

std::string collect_metrics(const CollectorOptions& options, ScrapeErrors& errors) {
  return Scrape(options, errors).run();
}

}  // namespace opctl::instance
