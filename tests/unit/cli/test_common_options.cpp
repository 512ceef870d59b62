// The rule for an opctl.yaml found inside the source (issue 19): it comes from
// the commit it would vouch for, so its verify block can demand verification
// but never configure, enable or disable it.
#include <catch2/catch.hpp>

#include "common_options.hpp"
#include "config/run_config.hpp"
#include "model/error.hpp"

using namespace opctl;

namespace {

config::RunConfig found_config(const std::string& spec) {
  return config::parse_run_config("apiVersion: opctl.io/v1alpha1\nkind: Config\nspec:\n" + spec,
                                  "repo@abc1234:prod/opctl.yaml");
}

}  // namespace

TEST_CASE("an in-source opctl.yaml that asks for signed commits fails a run that does not verify",
          "[common_options]") {
  cli::CommonOptions options;
  auto found = found_config("  verify:\n    commits: true\n    allowedSignersFile: /tmp/attacker\n");
  try {
    cli::apply_found_config(options, found);
    FAIL("an unverified run used a source that asks for verification");
  } catch (const InvalidInputError& error) {
    REQUIRE(error.problems().size() == 1);
    CHECK(error.problems()[0].file == "repo@abc1234:prod/opctl.yaml");
    CHECK(error.problems()[0].field == "spec.verify.commits");
    CHECK_THAT(error.problems()[0].message,
               Catch::Contains("--verify-commits or in a -f file outside the source"));
  }
}

TEST_CASE("an in-source verify block never changes the trust files or turns verification off",
          "[common_options]") {
  cli::CommonOptions options;
  options.source.verification = {true, "/etc/opctl/allowed_signers", ""};
  cli::apply_found_config(options,
                          found_config("  verify:\n    commits: true\n    allowedSignersFile: /tmp/x\n"));
  CHECK(options.source.verification.enabled);
  CHECK(options.source.verification.allowed_signers_file == "/etc/opctl/allowed_signers");
  CHECK(options.source.verification.gpg_keyring_file.empty());

  cli::apply_found_config(options, found_config("  verify:\n    commits: false\n"));
  CHECK(options.source.verification.enabled);
}

TEST_CASE("an in-source opctl.yaml without verify changes nothing about verification", "[common_options]") {
  cli::CommonOptions options;
  CHECK_NOTHROW(cli::apply_found_config(options, found_config("  prune: true\n")));
  CHECK_FALSE(options.source.verification.enabled);
}
