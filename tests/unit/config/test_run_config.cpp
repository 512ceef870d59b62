// opctl.yaml keys added for issue 17: spec.execTimeout and spec.pruneCRDs;
// metadata.name is optional (an unnamed set never prunes).
#include <catch2/catch.hpp>

#include "config/run_config.hpp"
#include "model/error.hpp"

using opctl::config::parse_run_config;

TEST_CASE("execTimeout and pruneCRDs are read; a missing name stays empty", "[run_config]") {
  auto config = parse_run_config(
      "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  execTimeout: 2m\n  pruneCRDs: true\n",
      "opctl.yaml");
  CHECK(config.name.empty());
  REQUIRE(config.exec_timeout);
  CHECK(*config.exec_timeout == std::chrono::minutes(2));
  CHECK(config.prune_crds == true);
  CHECK_THROWS_WITH(
      parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  execTimeout: soon\n",
                       "opctl.yaml"),
      Catch::Contains("opctl.yaml:4: spec.execTimeout: must be a duration"));
}

TEST_CASE("spec.keepRunning is a boolean, absent unless given", "[run_config]") {
  auto header = std::string("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n");
  CHECK_FALSE(parse_run_config(header + "  wait: true\n", "opctl.yaml").keep_running);
  CHECK(parse_run_config(header + "  keepRunning: false\n", "opctl.yaml").keep_running == false);
  CHECK_THROWS_WITH(parse_run_config(header + "  keepRunning: sometimes\n", "opctl.yaml"),
                    Catch::Contains("spec.keepRunning"));
}

TEST_CASE("spec.helm entries are read with every field and where they start", "[run_config][helm]") {
  // Given a helm: entry with values from another path, we should keep every field and the entry's line.
  auto config = parse_run_config(R"(apiVersion: opctl.io/v1alpha1
kind: Config
spec:
  helm:
    - chart: ../../charts/web
      releaseName: web-prod
      namespace: shop
      valuesFiles: [../../values/web.yaml, web-extra.yaml]
      kubeVersion: "1.31.0"
      apiVersions: [monitoring.coreos.com/v1]
      skipHooks: true
)",
                                 "opctl.yaml");
  REQUIRE(config.helm.size() == 1);
  const auto& chart = config.helm[0];
  CHECK(chart.chart == "../../charts/web");
  CHECK(chart.release_name == "web-prod");
  CHECK(chart.namespace_name == "shop");
  CHECK(chart.values_files == std::vector<std::string>{"../../values/web.yaml", "web-extra.yaml"});
  CHECK(chart.kube_version == "1.31.0");
  CHECK(chart.api_versions == std::vector<std::string>{"monitoring.coreos.com/v1"});
  CHECK(chart.skip_hooks);
  CHECK(chart.line == 5);
}

TEST_CASE("a helm entry without a chart, with an absolute path or a bad release name is refused",
          "[run_config][helm]") {
  // Given mistakes in helm: entries, we should report each with its file, line and field.
  auto parse = [](const std::string& entry) {
    return parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  helm:\n" + entry,
                            "opctl.yaml");
  };
  CHECK_THROWS_WITH(parse("    - releaseName: web\n"),
                    Catch::Contains("spec.helm[0]: a helm entry needs chart"));
  CHECK_THROWS_WITH(
      parse("    - chart: /srv/charts/web\n"),
      Catch::Contains("opctl.yaml:5: spec.helm[0].chart: \"/srv/charts/web\" must be relative"));
  CHECK_THROWS_WITH(parse("    - chart: web\n      releaseName: Web_1\n"),
                    Catch::Contains("spec.helm[0].releaseName: must be a lowercase name"));
  CHECK_THROWS_WITH(parse("    - chart: web\n      values: v.yaml\n"),
                    Catch::Contains("unknown field \"values\""));
}

TEST_CASE("the set's ApplySet parent and Lease are named opctl-<metadata.name>", "[run_config]") {
  // Given a config's name, we should give the one name every command looks the set's objects up by.
  CHECK(opctl::config::set_object_name("shop") == "opctl-shop");
  CHECK(opctl::config::set_object_name("default") == "opctl-default");
}

TEST_CASE("spec.qps is auto or a number of requests per second", "[run_config][qps]") {
  // Given each form of spec.qps, we should read auto as adaptive, a number as a fixed rate, and refuse the
  // rest.
  using opctl::config::RequestRate;
  auto qps = [](const std::string& value) {
    return parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  qps: " + value + "\n",
                            "opctl.yaml")
        .qps;
  };
  CHECK(qps("auto") == RequestRate{});
  CHECK(qps("50") == RequestRate{50.0});
  CHECK(qps("12.5") == RequestRate{12.5});
  CHECK(qps("0") == RequestRate{0.0});
  CHECK(qps("\"200\"") == RequestRate{200.0});
  CHECK_FALSE(parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\n", "opctl.yaml").qps);
  for (const std::string bad : {"-1", "fast", "true", "[1]", "\"\"", ".nan"})
    CHECK_THROWS_WITH(qps(bad), Catch::Contains("opctl.yaml:4: spec.qps: must be auto or a number"));
}

TEST_CASE("--qps text is auto or a non-negative number, nothing else", "[run_config][qps]") {
  using opctl::config::parse_request_rate;
  CHECK(parse_request_rate("auto") == opctl::config::RequestRate{});
  CHECK(parse_request_rate("200")->fixed == 200);
  CHECK(parse_request_rate("0.5")->fixed == 0.5);
  for (const std::string bad : {"", "Auto", "-5", "5/s", " 5", "inf", "nan", "1e999"})
    CHECK_FALSE(parse_request_rate(bad));
}

TEST_CASE("spec.clusterDefaults.imageName is read; empty or unknown keys are refused", "[run_config]") {
  auto header = std::string("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n");
  CHECK_FALSE(parse_run_config(header + "  wait: true\n", "opctl.yaml").cluster_defaults.image_name);
  auto config = parse_run_config(
      header + "  clusterDefaults:\n    imageName: registry.example/postgresql:15-0.1.0\n", "opctl.yaml");
  CHECK(config.cluster_defaults.image_name == "registry.example/postgresql:15-0.1.0");
  CHECK_THROWS_WITH(parse_run_config(header + "  clusterDefaults:\n    imageName: \"\"\n", "opctl.yaml"),
                    Catch::Contains("opctl.yaml:5: spec.clusterDefaults.imageName: must name an image"));
  CHECK_THROWS_WITH(parse_run_config(header + "  clusterDefaults:\n    image: x:15\n", "opctl.yaml"),
                    Catch::Contains("spec.clusterDefaults.image: unknown field"));
}
