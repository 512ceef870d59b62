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
  CHECK(config.exec_timeout->count() == 120);
  CHECK(config.prune_crds == true);
  CHECK_THROWS_WITH(
      parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  execTimeout: soon\n",
                       "opctl.yaml"),
      Catch::Contains("opctl.yaml:4: spec.execTimeout: must be a duration"));
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
