// spec.metrics: the file and the push read with their lines, a credential
// never inline, and a push without a usable URL refused with file and line.
#include <catch2/catch.hpp>

#include "config/run_config.hpp"
#include "model/error.hpp"

using opctl::InvalidInputError;
using opctl::config::parse_run_config;

namespace {

const std::string k_header = "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  metrics:\n";

std::vector<opctl::Problem> problems_of(const std::string& metrics) {
  try {
    parse_run_config(k_header + metrics, "opctl.yaml");
  } catch (const InvalidInputError& error) {
    return error.problems();
  }
  FAIL("accepted: " << metrics);
  return {};
}

}  // namespace

TEST_CASE("spec.metrics is read with the file, the push and where each is", "[run_config][metrics]") {
  // Given a file and a push with a credential file, we should keep both and note their lines.
  auto config = parse_run_config(k_header + R"(    file: /var/lib/node-exporter/opctl.prom
    push:
      url: http://pushgateway.monitoring:9091
      authFile: /etc/opctl/metrics-push/authorization
)",
                                 "opctl.yaml");
  CHECK(config.metrics.file == "/var/lib/node-exporter/opctl.prom");
  CHECK(config.metrics.file_line == 5);
  REQUIRE(config.metrics.push);
  CHECK(config.metrics.push->url == "http://pushgateway.monitoring:9091");
  CHECK(config.metrics.push->auth_file == "/etc/opctl/metrics-push/authorization");
  CHECK(config.metrics.push->auth_env.empty());
  CHECK(config.metrics.push->line == 6);

  auto from_env = parse_run_config(
      k_header + "    push:\n      url: https://gw.example\n      authEnv: GW_AUTH\n", "opctl.yaml");
  CHECK_FALSE(from_env.metrics.file);
  REQUIRE(from_env.metrics.push);
  CHECK(from_env.metrics.push->auth_env == "GW_AUTH");
}

TEST_CASE("without spec.metrics nothing is written or pushed", "[run_config][metrics]") {
  auto config = parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec: {}\n", "opctl.yaml");
  CHECK_FALSE(config.metrics.file);
  CHECK_FALSE(config.metrics.push);
}

TEST_CASE("a credential written into spec.metrics is refused with its line", "[run_config][metrics]") {
  for (const char* field : {"authorization", "token", "password"}) {
    auto problems =
        problems_of(std::string("    push:\n      url: http://gw:9091\n      ") + field + ": Bearer abc\n");
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].file == "opctl.yaml");
    CHECK(problems[0].line == 7);
    CHECK(problems[0].field == std::string("spec.metrics.push.") + field);
    CHECK_THAT(problems[0].message, Catch::Contains("use authFile or authEnv"));
    CHECK_THAT(problems[0].message, !Catch::Contains("abc"));
  }
  auto in_url = problems_of("    push:\n      url: http://user:secret@gw:9091\n");
  REQUIRE(in_url.size() == 1);
  CHECK(in_url[0].field == "spec.metrics.push.url");
  CHECK(in_url[0].line == 6);
  CHECK_THAT(in_url[0].message, Catch::Contains("carries a credential"));
  CHECK_THAT(in_url[0].message, !Catch::Contains("secret"));
}

TEST_CASE("a push needs one http URL and at most one credential", "[run_config][metrics]") {
  auto no_url = problems_of("    push:\n      authEnv: GW_AUTH\n");
  REQUIRE(no_url.size() == 1);
  CHECK(no_url[0].field == "spec.metrics.push");
  CHECK(no_url[0].line == 5);
  CHECK_THAT(no_url[0].message, Catch::Contains("needs url"));

  auto not_http = problems_of("    push:\n      url: gw:9091\n");
  REQUIRE(not_http.size() == 1);
  CHECK(not_http[0].field == "spec.metrics.push.url");
  CHECK_THAT(not_http[0].message, Catch::Contains("http:// or https://"));

  auto both = problems_of("    push:\n      url: http://gw\n      authFile: /a\n      authEnv: B\n");
  REQUIRE(both.size() == 1);
  CHECK_THAT(both[0].message, Catch::Contains("at most one of authFile or authEnv"));
}

TEST_CASE("a typo or a wrong type in spec.metrics is an error naming the field", "[run_config][metrics]") {
  auto typo = problems_of("    pushh:\n      url: http://gw\n");
  REQUIRE(typo.size() == 1);
  CHECK(typo[0].field == "spec.metrics.pushh");
  CHECK(typo[0].line == 5);
  CHECK_THAT(typo[0].message, Catch::Contains("known: file, push"));

  auto empty_file = problems_of("    file: \"\"\n");
  REQUIRE(empty_file.size() == 1);
  CHECK(empty_file[0].field == "spec.metrics.file");
  CHECK_THAT(empty_file[0].message, Catch::Contains("path of the file"));

  auto not_a_map = problems_of("    push: http://gw\n");
  REQUIRE_FALSE(not_a_map.empty());
  CHECK(not_a_map[0].field == "spec.metrics.push");
  CHECK_THAT(not_a_map[0].message, Catch::Contains("must be a mapping"));
}
