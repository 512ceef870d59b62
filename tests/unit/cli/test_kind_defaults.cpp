// The site default of a Cluster's image, as a run sees it: opctl.yaml's
// spec.clusterDefaults.imageName (also from inside the source), and
// --default-postgres-image over it.
#include <catch2/catch.hpp>

#include "common_options.hpp"
#include "config/run_config.hpp"
#include "kind_defaults.hpp"

using namespace opctl;

namespace {

config::RunConfig config_with(const std::string& spec) {
  return config::parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n" + spec,
                                  "repo@abc1234:opctl.yaml");
}

}  // namespace

TEST_CASE("a run's default PostgreSQL image: the flag, else opctl.yaml, else none", "[kind_defaults]") {
  cli::CommonOptions options;
  CHECK(cli::builtin_kind_options(options).default_postgres_image.empty());
  cli::apply_found_config(options,
                          config_with("  clusterDefaults:\n    imageName: registry.example/pg:15-1\n"));
  CHECK(cli::builtin_kind_options(options).default_postgres_image == "registry.example/pg:15-1");
  options.default_postgres_image = "localhost/opctl-postgresql:15";
  CHECK(cli::builtin_kind_options(options).default_postgres_image == "localhost/opctl-postgresql:15");
}
