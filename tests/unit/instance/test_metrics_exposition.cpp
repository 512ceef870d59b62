#include <catch2/catch.hpp>
#include <cmath>

#include "instance/metrics_exposition.hpp"

namespace opctl::instance {
namespace {

TEST_CASE("a family is written once with HELP and TYPE, then its samples", "[instance][metrics]") {
  // Given two samples of one family and one of another, we should get each HELP and TYPE once.
  MetricFamilies families;
  CHECK(families.declare("opctl_pg_database_size_bytes", MetricType::gauge, "size").empty());
  CHECK(families.declare("opctl_pg_stat_archiver_archived_count", MetricType::counter, "archived").empty());
  CHECK(families.add("opctl_pg_database_size_bytes", {{"datname", "app"}}, 7901667).empty());
  CHECK(families.add("opctl_pg_stat_archiver_archived_count", {}, 3).empty());
  CHECK(families.add("opctl_pg_database_size_bytes", {{"datname", "postgres"}}, 1.5).empty());
  CHECK(families.text() ==
        "# HELP opctl_pg_database_size_bytes size\n"
        "# TYPE opctl_pg_database_size_bytes gauge\n"
        "opctl_pg_database_size_bytes{datname=\"app\"} 7901667\n"
        "opctl_pg_database_size_bytes{datname=\"postgres\"} 1.5\n"
        "# HELP opctl_pg_stat_archiver_archived_count archived\n"
        "# TYPE opctl_pg_stat_archiver_archived_count counter\n"
        "opctl_pg_stat_archiver_archived_count 3\n");
}

TEST_CASE("label values are escaped: backslash, double quote and newline", "[instance][metrics]") {
  MetricFamilies families;
  families.declare("opctl_backends_total", MetricType::gauge, "a \\ help\nline");
  CHECK(families.add("opctl_backends_total", {{"application_name", "a\\b\"c\nd"}}, 1).empty());
  CHECK(families.text() ==
        "# HELP opctl_backends_total a \\\\ help\\nline\n"
        "# TYPE opctl_backends_total gauge\n"
        "opctl_backends_total{application_name=\"a\\\\b\\\"c\\nd\"} 1\n");
}

TEST_CASE("a series is written at most once, and bad names are refused", "[instance][metrics]") {
  MetricFamilies families;
  families.declare("opctl_x", MetricType::gauge, "x");
  CHECK(families.add("opctl_x", {{"a", "1"}}, 1).empty());
  CHECK_FALSE(families.add("opctl_x", {{"a", "1"}}, 2).empty());
  CHECK_FALSE(families.add("opctl_x", {{"a", "1"}, {"a", "2"}}, 2).empty());
  CHECK_FALSE(families.add("opctl_x", {{"__name__", "y"}}, 2).empty());
  CHECK_FALSE(families.add("opctl_x", {{"bad-label", "y"}}, 2).empty());
  CHECK_FALSE(families.add("opctl_undeclared", {}, 2).empty());
  CHECK_FALSE(families.declare("9lives", MetricType::gauge, "").empty());
  CHECK_FALSE(families.declare("opctl_x", MetricType::counter, "").empty());
  CHECK(families.declare("opctl_x", MetricType::gauge, "again").empty());
  CHECK(families.text() == "# HELP opctl_x x\n# TYPE opctl_x gauge\nopctl_x{a=\"1\"} 1\n");
}

TEST_CASE("a merge is all or nothing", "[instance][metrics]") {
  MetricFamilies main;
  main.declare("opctl_x", MetricType::gauge, "x");
  main.add("opctl_x", {}, 1);
  MetricFamilies clashing;
  clashing.declare("opctl_y", MetricType::gauge, "y");
  clashing.add("opctl_y", {}, 2);
  clashing.declare("opctl_x", MetricType::gauge, "x");
  clashing.add("opctl_x", {}, 3);
  CHECK_FALSE(main.merge(clashing).empty());
  CHECK_FALSE(main.has("opctl_y"));
  MetricFamilies fine;
  fine.declare("opctl_y", MetricType::gauge, "y");
  fine.add("opctl_y", {}, 2);
  CHECK(main.merge(fine).empty());
  CHECK(main.text() ==
        "# HELP opctl_x x\n# TYPE opctl_x gauge\nopctl_x 1\n# HELP opctl_y y\n# TYPE opctl_y gauge\n"
        "opctl_y 2\n");
}

TEST_CASE("sample values: integers without an exponent, NaN and infinities by name", "[instance][metrics]") {
  CHECK(format_metric_value(123456789012) == "123456789012");
  CHECK(format_metric_value(-1) == "-1");
  CHECK(format_metric_value(0.25) == "0.25");
  CHECK(format_metric_value(std::nan("")) == "NaN");
  CHECK(format_metric_value(HUGE_VAL) == "+Inf");
  CHECK(format_metric_value(-HUGE_VAL) == "-Inf");
}

}  // namespace
}  // namespace opctl::instance
