// Custom metrics queries in postgres_exporter's (and CloudNativePG's) YAML
// format, from the files of spec.monitoring.customQueriesConfigMap (mounted
// into the instance): one mapping of query name to
//   query: SQL, metrics: [{column: {usage: COUNTER|GAUGE|LABEL|DISCARD, description}}],
//   primary: true (only on the primary), target_databases: [db, ...] or ["*"].
// Parsing is pure; a query that cannot be used carries its error, which the
// exporter reports as opctl_collector_last_error and skips.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opctl::instance {

enum class ColumnUsage { counter, gauge, label, discard };

struct QueryColumn {
  std::string name;
  ColumnUsage usage = ColumnUsage::gauge;
  std::string description;
};

struct CustomQuery {
  std::string name;    // metrics are named opctl_<name>_<column>
  std::string source;  // the file it came from
  std::string sql;
  std::vector<QueryColumn> columns;
  bool primary_only = false;
  // Empty: the default database (postgres). "*": every database that allows connections.
  std::vector<std::string> target_databases;
  std::string error;  // why it cannot run; empty when it can
};

// Every query of one file's text. A file that is not a YAML mapping gives one
// CustomQuery named after the file, with the error.
std::vector<CustomQuery> parse_custom_queries(std::string_view text, const std::string& source);

// Every file of `directory` (names not starting with '.', sorted; a mounted
// ConfigMap's links), parsed. A missing directory: no queries.
std::vector<CustomQuery> load_custom_queries(const std::string& directory);

}  // namespace opctl::instance
