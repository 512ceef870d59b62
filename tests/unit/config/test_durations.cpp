// Durations as kubectl reads them (Go's time.ParseDuration): sub-second
// values, fractions and compound forms, carried as milliseconds to every
// timeout; and opctl.yaml's duration fields, each with its own lower bound.
#include <catch2/catch.hpp>

#include "config/run_config.hpp"
#include "model/error.hpp"

using namespace std::chrono_literals;
using opctl::config::format_duration;
using opctl::config::parse_duration;
using opctl::config::parse_run_config;

TEST_CASE("Go-style durations parse to milliseconds", "[durations]") {
  // Given the forms kubectl accepts, we should read each to the millisecond.
  CHECK(parse_duration("0") == 0ms);
  CHECK(parse_duration("0s") == 0ms);
  CHECK(parse_duration("500ms") == 500ms);
  CHECK(parse_duration("1.5s") == 1500ms);
  CHECK(parse_duration(".5s") == 500ms);
  CHECK(parse_duration("1.s") == 1000ms);
  CHECK(parse_duration("90s") == 90s);
  CHECK(parse_duration("1m30s") == 90s);
  CHECK(parse_duration("1h30m") == 90min);
  CHECK(parse_duration("2h") == 2h);
  CHECK(parse_duration("1.5h") == 90min);
  CHECK(parse_duration("1m0.25s") == 60250ms);
  CHECK(parse_duration("2500us") == 3ms);  // rounded up: never shorter than asked
  CHECK(parse_duration("1ns") == 1ms);
  CHECK(parse_duration("1500000ns") == 2ms);
  CHECK(parse_duration("3\u00b5s") == 1ms);
}

TEST_CASE("malformed, negative and unit-less durations are refused", "[durations]") {
  // Given what Go refuses (and negatives, which no timeout can be), we should return nothing.
  for (const char* text : {"", "5", "1.5", "s", ".s", "5 s", "5sec", "-1s", "+1s", "1d", "1m 30s", "ms",
                           "1..5s", "99999999999h", "1e3s"})
    CHECK_FALSE(parse_duration(text));
}

TEST_CASE("format_duration prints as Go does and reads back", "[durations]") {
  // Given durations of each size, we should print Go's form, which parses to the same value.
  CHECK(format_duration(0ms) == "0s");
  CHECK(format_duration(500ms) == "500ms");
  CHECK(format_duration(1500ms) == "1.5s");
  CHECK(format_duration(90s) == "1m30s");
  CHECK(format_duration(5min) == "5m0s");
  CHECK(format_duration(2h + 250ms) == "2h0m0.25s");
  for (std::chrono::milliseconds value : {0ms, 1ms, 999ms, 1001ms, 61000ms, 3601007ms})
    CHECK(parse_duration(format_duration(value)) == value);
}

namespace {
std::string config_with(const std::string& spec) {
  return "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n" + spec;
}
}  // namespace

TEST_CASE("opctl.yaml carries sub-second timeouts and says where a bad one is", "[durations][run_config]") {
  // Given spec.timeout and spec.execTimeout below a second, we should keep the milliseconds; given
  // a bad one, we should name the file, the line and the field.
  auto config = parse_run_config(config_with("  timeout: 1.5s\n  execTimeout: 750ms\n"), "opctl.yaml");
  CHECK(config.timeout == 1500ms);
  CHECK(config.exec_timeout == 750ms);
  CHECK(parse_run_config(config_with("  timeout: \"0\"\n"), "opctl.yaml").timeout == 0ms);
  CHECK(parse_run_config(config_with("  timeout: 0\n"), "opctl.yaml").timeout == 0ms);
  CHECK_THROWS_WITH(parse_run_config(config_with("  timeout: 30\n"), "opctl.yaml"),
                    Catch::Contains("opctl.yaml:4: spec.timeout: must be a duration"));
  CHECK_THROWS_WITH(
      parse_run_config(config_with("  wait: true\n  timeout: 5 minutes\n"), "opctl.yaml"),
      Catch::Contains("opctl.yaml:5: spec.timeout: must be a duration such as 500ms, 90s, 1m30s or 2h"));
}

TEST_CASE("a Lease duration must be whole seconds, at least one", "[durations][run_config]") {
  // Given lease durations of 30s, 1.5s and 0s, we should keep the first and refuse the others at their line.
  CHECK(parse_run_config(config_with("  lease:\n    duration: 30s\n"), "opctl.yaml").lease_duration == 30s);
  for (const char* bad : {"1.5s", "0s", "500ms"})
    CHECK_THROWS_WITH(
        parse_run_config(config_with(std::string("  lease:\n    duration: ") + bad + "\n"), "opctl.yaml"),
        Catch::Contains("opctl.yaml:5: spec.lease.duration: must be whole seconds, at least 1s"));
}

TEST_CASE("a hook kind's timeout may be sub-second but not 0", "[durations][run_config]") {
  // Given hook timeouts of 250ms and 0s, we should keep the first and refuse the second.
  auto hook = [](const std::string& timeout) {
    return config_with(
        "  kinds:\n  - apiVersion: example.com/v1\n    kind: Thing\n    command: [\"true\"]\n    timeout: " +
        timeout + "\n");
  };
  CHECK(parse_run_config(hook("250ms"), "opctl.yaml").kinds.front().timeout == 250ms);
  CHECK_THROWS_WITH(parse_run_config(hook("0s"), "opctl.yaml"),
                    Catch::Contains("opctl.yaml:8: spec.kinds[0].timeout: must be more than 0"));
}

TEST_CASE("a notification's timeout stays at least a second", "[durations][run_config]") {
  // Given a notification timeout of 500ms, we should refuse it (a webhook across the internet needs more).
  CHECK_THROWS_WITH(
      parse_run_config(
          config_with("  notifications:\n  - type: webhook\n    urlEnv: HOOK\n    timeout: 500ms\n"),
          "opctl.yaml"),
      Catch::Contains("timeout: must be at least 1s"));
}
