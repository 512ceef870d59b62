// What the exporter answers on /metrics: opctl's default metrics of this
// instance's PostgreSQL (opctl_collector_*, opctl_pg_*, opctl_backends_*;
// the set CloudNativePG's exporter has, under opctl's prefix) and the custom
// queries (custom_queries.hpp), collected on connections of the scrape's
// own, never the manager's: a slow scrape cannot delay a step. PostgreSQL
// down: opctl_collector_up 0 and nothing else from it. A query that fails is
// opctl_collector_last_error{query} 1 and leaves the others' metrics.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "instance/custom_queries.hpp"
#include "instance/instance_identity.hpp"
#include "instance/metrics_exposition.hpp"
#include "instance/pg_connection.hpp"

namespace opctl::instance {

struct CollectorOptions {
  // The local server (its socket directory, port, superuser); the database
  // is set per query. Its statement timeout bounds each query of a scrape.
  ConnectionSettings connection;
  // Where the custom queries' files are (the mounted ConfigMaps); empty: none.
  std::string queries_dir;
};

// Why each query that failed in a scrape failed, by the query label of
// opctl_collector_last_error (for the log: a metric carries no message).
using ScrapeErrors = std::map<std::string, std::string>;

// One scrape, as the text exposition format; the failures into `errors`.
std::string collect_metrics(const CollectorOptions& options, ScrapeErrors& errors);

// A custom query's result into metrics: opctl_<query>_<column> per COUNTER
// or GAUGE column, labelled with the LABEL columns (and datname, when the
// query names target_databases). Returns an error message (a column missing
// from the result, a value that is not a number, a series twice); empty when
// every row went in.
std::string custom_query_metrics(const CustomQuery& query, const Table& result, const std::string& database,
                                 MetricFamilies& families);

// The exporter's options for an instance: its local server's socket as the
// superuser (local connections are trusted), statement timeout 5 s.
CollectorOptions collector_options(const InstanceIdentity& identity, const std::string& queries_dir);

}  // namespace opctl::instance
