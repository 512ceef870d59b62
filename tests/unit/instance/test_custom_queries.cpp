#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "instance/custom_queries.hpp"
#include "instance/metrics_collector.hpp"

namespace opctl::instance {
namespace {

constexpr const char* k_queries_yaml = R"(
pg_stat_user_tables:
  query: "SELECT relname, n_live_tup, seq_scan, 'x' AS ignored FROM pg_stat_user_tables"
  primary: true
  target_databases: ["app"]
  metrics:
    - relname:
        usage: "LABEL"
        description: "the table"
    - n_live_tup:
        usage: "GAUGE"
        description: "live rows"
    - seq_scan:
        usage: "COUNTER"
        description: "sequential scans"
    - ignored:
        usage: "DISCARD"
)";

TEST_CASE("postgres_exporter's query format is read: columns, usage, primary, target_databases",
          "[instance][metrics]") {
  auto queries = parse_custom_queries(k_queries_yaml, "queries.yaml");
  REQUIRE(queries.size() == 1);
  const CustomQuery& query = queries[0];
  CHECK(query.error.empty());
  CHECK(query.name == "pg_stat_user_tables");
  CHECK(query.primary_only);
  CHECK(query.target_databases == std::vector<std::string>{"app"});
  REQUIRE(query.columns.size() == 4);
  CHECK(query.columns[0].usage == ColumnUsage::label);
  CHECK(query.columns[1].usage == ColumnUsage::gauge);
  CHECK(query.columns[1].description == "live rows");
  CHECK(query.columns[2].usage == ColumnUsage::counter);
  CHECK(query.columns[3].usage == ColumnUsage::discard);
}

TEST_CASE("a query that cannot be used carries its error, and the file's other queries stay usable",
          "[instance][metrics]") {
  auto queries = parse_custom_queries(R"(
good:
  query: "SELECT 1 AS one"
  metrics: [{one: {usage: GAUGE}}]
no_sql:
  metrics: [{one: {usage: GAUGE}}]
bad_usage:
  query: "SELECT 1 AS one"
  metrics: [{one: {usage: HISTOGRAM}}]
only_labels:
  query: "SELECT 'a' AS name"
  metrics: [{name: {usage: LABEL}}]
versioned:
  query: "SELECT 1 AS one"
  runonserver: ">=11.0.0"
  metrics: [{one: {usage: GAUGE}}]
)",
                                      "q.yaml");
  std::map<std::string, std::string> errors;
  for (const auto& query : queries)
    errors[query.name] = query.error;
  CHECK(errors.at("good").empty());
  CHECK_THAT(errors.at("no_sql"), Catch::Matchers::Contains("query"));
  CHECK_THAT(errors.at("bad_usage"), Catch::Matchers::Contains("COUNTER, GAUGE, LABEL or DISCARD"));
  CHECK_THAT(errors.at("only_labels"), Catch::Matchers::Contains("COUNTER or a GAUGE"));
  CHECK_THAT(errors.at("versioned"), Catch::Matchers::Contains("runonserver is not supported"));
}

TEST_CASE("a file that is not YAML, or not a mapping, is one error named after the file",
          "[instance][metrics]") {
  auto broken = parse_custom_queries("a: [unclosed", "broken.yaml");
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].name == "broken.yaml");
  CHECK_FALSE(broken[0].error.empty());
  auto list = parse_custom_queries("- 1\n- 2\n", "list.yaml");
  REQUIRE(list.size() == 1);
  CHECK_THAT(list[0].error, Catch::Matchers::Contains("mapping"));
}

TEST_CASE("a custom query's rows become opctl_<query>_<column> labelled by its LABEL columns",
          "[instance][metrics]") {
  auto query = parse_custom_queries(k_queries_yaml, "queries.yaml").at(0);
  Table result{{"relname", "n_live_tup", "seq_scan", "ignored"},
               {{"orders", "42", "7", "x"}, {"say \"hi\"", "", "0", "x"}}};
  MetricFamilies families;
  REQUIRE(custom_query_metrics(query, result, "app", families).empty());
  CHECK(families.text() ==
        "# HELP opctl_pg_stat_user_tables_n_live_tup live rows\n"
        "# TYPE opctl_pg_stat_user_tables_n_live_tup gauge\n"
        "opctl_pg_stat_user_tables_n_live_tup{relname=\"orders\",datname=\"app\"} 42\n"
        "opctl_pg_stat_user_tables_n_live_tup{relname=\"say \\\"hi\\\"\",datname=\"app\"} NaN\n"
        "# HELP opctl_pg_stat_user_tables_seq_scan sequential scans\n"
        "# TYPE opctl_pg_stat_user_tables_seq_scan counter\n"
        "opctl_pg_stat_user_tables_seq_scan{relname=\"orders\",datname=\"app\"} 7\n"
        "opctl_pg_stat_user_tables_seq_scan{relname=\"say \\\"hi\\\"\",datname=\"app\"} 0\n");
}

TEST_CASE("a custom query's result that does not fit is an error: a missing column, text, a series twice",
          "[instance][metrics]") {
  auto query = parse_custom_queries(k_queries_yaml, "queries.yaml").at(0);
  MetricFamilies families;
  CHECK_THAT(custom_query_metrics(query, Table{{"relname", "n_live_tup"}, {}}, "", families),
             Catch::Matchers::Contains("seq_scan is not in the query's result"));
  Table text{{"relname", "n_live_tup", "seq_scan"}, {{"orders", "many", "1"}}};
  CHECK_THAT(custom_query_metrics(query, text, "", families), Catch::Matchers::Contains("not a number"));
  MetricFamilies again;
  Table twice{{"relname", "n_live_tup", "seq_scan"}, {{"orders", "1", "1"}, {"orders", "2", "2"}}};
  CHECK_THAT(custom_query_metrics(query, twice, "", again), Catch::Matchers::Contains("twice"));
}

TEST_CASE("the queries directory: every file not starting with a dot, in name order", "[instance][metrics]") {
  namespace fs = std::filesystem;
  fs::path directory =
      fs::temp_directory_path() / fs::path("opctl-custom-queries-" + std::to_string(getpid()));
  fs::create_directories(directory / "..data");
  std::ofstream(directory / "02-b.yaml")
      << "second:\n  query: SELECT 1 AS v\n  metrics: [{v: {usage: GAUGE}}]\n";
  std::ofstream(directory / "01-a.yaml")
      << "first:\n  query: SELECT 1 AS v\n  metrics: [{v: {usage: GAUGE}}]\n";
  std::ofstream(directory / ".hidden") << "not: read\n";
  auto queries = load_custom_queries(directory.string());
  fs::remove_all(directory);
  REQUIRE(queries.size() == 2);
  CHECK(queries[0].name == "first");
  CHECK(queries[1].name == "second");
  CHECK(load_custom_queries((directory / "gone").string()).empty());
}

TEST_CASE("PostgreSQL down: the scrape still answers, with opctl_collector_up 0", "[instance][metrics]") {
  CollectorOptions options;
  options.connection.host = "/nonexistent-socket-directory";
  options.connection.port = 1;
  options.connection.user = "postgres";
  options.connection.connect_timeout = std::chrono::seconds(1);
  ScrapeErrors errors;
  std::string text = collect_metrics(options, errors);
  CHECK_THAT(text, Catch::Matchers::Contains("# TYPE opctl_collector_up gauge\nopctl_collector_up 0\n"));
  CHECK(errors.contains("connection"));
}

}  // namespace
}  // namespace opctl::instance
