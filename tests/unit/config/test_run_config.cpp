// opctl.yaml keys added for issue 17: spec.execTimeout and spec.pruneCRDs;
// metadata.name is optional (an unnamed set never prunes).
#include <catch2/catch.hpp>

#include "config/run_config.hpp"
#include "model/error.hpp"

using opctl::config::parse_run_config;

TEST_CASE("execTimeout and pruneCRDs are read; a missing name stays empty", "[run_config]") {
  auto config = parse_run_config(
      "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  execTimeout: 2m\n  pruneCRDs: true\n", "opctl.yaml");
  CHECK(config.name.empty());
  REQUIRE(config.exec_timeout);
  CHECK(config.exec_timeout->count() == 120);
  CHECK(config.prune_crds == true);
  CHECK_THROWS_WITH(parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  execTimeout: soon\n",
                                     "opctl.yaml"),
                    Catch::Contains("opctl.yaml:4: spec.execTimeout: must be a duration"));
}
