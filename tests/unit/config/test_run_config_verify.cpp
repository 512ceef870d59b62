// opctl.yaml's spec.verify block (issue 19): commit signature verification,
// parsed as strictly as the rest of the file.
#include <catch2/catch.hpp>

#include "config/run_config.hpp"
#include "model/error.hpp"

using opctl::config::parse_run_config;

TEST_CASE("spec.verify is read into the verification settings", "[run_config]") {
  auto config = parse_run_config(
      "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  verify:\n    commits: true\n"
      "    allowedSignersFile: /etc/opctl/verify/allowed_signers\n"
      "    gpgKeyringFile: /etc/opctl/verify/keyring.gpg\n",
      "opctl.yaml");
  CHECK(config.verify.commits == true);
  CHECK(config.verify.allowed_signers_file == "/etc/opctl/verify/allowed_signers");
  CHECK(config.verify.gpg_keyring_file == "/etc/opctl/verify/keyring.gpg");
}

TEST_CASE("a missing verify block leaves every setting unset", "[run_config]") {
  auto config = parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec: {}\n", "opctl.yaml");
  CHECK_FALSE(config.verify.commits);
  CHECK_FALSE(config.verify.allowed_signers_file);
  CHECK_FALSE(config.verify.gpg_keyring_file);
}

TEST_CASE("a typo or a wrong type in spec.verify is an error with its line", "[run_config]") {
  CHECK_THROWS_WITH(
      parse_run_config(
          "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  verify:\n    allowedSigners: x\n",
          "opctl.yaml"),
      Catch::Contains("opctl.yaml:5: spec.verify.allowedSigners: unknown field \"allowedSigners\"") &&
          Catch::Contains("allowedSignersFile"));
  CHECK_THROWS_WITH(
      parse_run_config(
          "apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n  verify:\n    commits: \"yes\"\n",
          "opctl.yaml"),
      Catch::Contains("opctl.yaml:5: spec.verify.commits: must be true or false"));
}
