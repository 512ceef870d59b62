// The rule for an opctl.yaml found inside the source (issue 19): it comes from
// the commit it would vouch for, so its verify block can demand verification
// but never configure, enable or disable it.
#include <catch2/catch.hpp>

#include "cluster_connection.hpp"
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

// Flags, then an opctl.yaml (-f, the directory's, or one found in the source), then defaults: every
// setting a pass or a prune preview reads is resolved by common_options, nowhere else.
TEST_CASE("pass settings come from the flags given, then the opctl.yaml found in the source",
          "[common_options]") {
  CLI::App app;
  cli::CommonOptions options;
  cli::add_source_flags(app, options);
  cli::add_change_flags(app, options);
  cli::add_pass_flags(app, options);
  app.parse("--timeout 90s --path manifests", false);
  cli::apply_found_config(options, found_config("  wait: true\n  timeout: 10m\n  pruneNamespaces: true\n"
                                                "  pruneCRDs: true\n  deletePropagation: Foreground\n"
                                                "  prune: true\n"));
  CHECK(options.wait);
  CHECK(cli::pass_timeout(options) == std::chrono::seconds(90));
  CHECK(options.prune);
  CHECK(options.prune_namespaces);
  CHECK(options.prune_crds);
  CHECK(options.delete_propagation == "Foreground");
}

TEST_CASE("a pass timeout from opctl.yaml applies when --timeout is not given", "[common_options]") {
  CLI::App app;
  cli::CommonOptions options;
  cli::add_source_flags(app, options);
  cli::add_pass_flags(app, options);
  app.parse("--wait --path manifests", false);
  cli::apply_found_config(options, found_config("  wait: false\n  timeout: 10m\n"));
  CHECK(options.wait);  // the flag wins over the file's false
  CHECK(cli::pass_timeout(options) == std::chrono::minutes(10));
  CHECK(options.delete_propagation == "Background");

  options.timeout = "soon";
  CHECK_THROWS_AS(cli::pass_timeout(options), opctl::InvalidInputError);
}

TEST_CASE("--timeout and --exec-timeout take sub-second values; only --timeout takes 0", "[common_options]") {
  // Given kubectl's spellings, we should carry milliseconds; 0 is "check once" for --timeout and an
  // error naming the flag for --exec-timeout (the plugin would be killed at once).
  CLI::App app;
  cli::CommonOptions options;
  cli::add_source_flags(app, options);
  cli::add_cluster_flags(app, options);
  cli::add_pass_flags(app, options);
  app.parse("--timeout 1.5s --exec-timeout 750ms --path manifests", false);
  CHECK(cli::pass_timeout(options) == std::chrono::milliseconds(1500));
  CHECK(cli::exec_timeout(options) == std::chrono::milliseconds(750));
  options.timeout = "0";
  CHECK(cli::pass_timeout(options) == std::chrono::milliseconds(0));
  options.exec_timeout = "0s";
  CHECK_THROWS_WITH(cli::exec_timeout(options),
                    Catch::Contains("--exec-timeout: '0s': must be a duration above 0"));
  options.timeout = "5";
  CHECK_THROWS_WITH(cli::pass_timeout(options),
                    Catch::Contains("--timeout: '5': must be a duration such as 500ms, 90s, 1m30s or 2h"));
}

TEST_CASE("a sub-second timeout from opctl.yaml reaches the pass unrounded", "[common_options]") {
  // Given spec.timeout: 2.5s and no flag, we should time the pass at 2.5s, not 2s or 3s.
  CLI::App app;
  cli::CommonOptions options;
  cli::add_source_flags(app, options);
  cli::add_pass_flags(app, options);
  app.parse("--path manifests", false);
  cli::apply_found_config(options, found_config("  timeout: 2.5s\n"));
  CHECK(cli::pass_timeout(options) == std::chrono::milliseconds(2500));
}

TEST_CASE("--qps is adaptive by default, fixed when a number is given, and opctl.yaml fills it in between",
          "[common_options][qps]") {
  // Given --qps or spec.qps or neither, we should hand the transport adaptive (nullopt), a fixed rate, or 0.
  auto transport_qps = [](const std::string& args, const std::string& spec) {
    CLI::App app;
    cli::CommonOptions options;
    cli::add_source_flags(app, options);
    cli::add_cluster_flags(app, options);
    app.parse(args + " --path manifests", false);
    if (!spec.empty()) cli::apply_found_config(options, found_config(spec));
    return cli::transport_options(options).qps;
  };
  CHECK_FALSE(transport_qps("", ""));
  CHECK_FALSE(transport_qps("--qps auto", ""));
  CHECK(transport_qps("--qps 50", "") == 50.0);
  CHECK(transport_qps("--qps 0", "") == 0.0);
  CHECK(transport_qps("", "  qps: 20\n") == 20.0);
  CHECK_FALSE(transport_qps("", "  qps: auto\n"));
  CHECK_FALSE(transport_qps("--qps auto", "  qps: 20\n"));  // the flag wins over the file
  CHECK(transport_qps("--qps 7", "  qps: auto\n") == 7.0);

  for (const std::string bad : {"fast", "-1"}) {
    CLI::App app;
    cli::CommonOptions options;
    cli::add_cluster_flags(app, options);
    CHECK_THROWS_AS(app.parse("--qps " + bad, false), CLI::ParseError);
  }
}

TEST_CASE("keeping the custom resources running is on unless --no-keep-running or spec.keepRunning: false",
          "[common_options]") {
  // Given no flag and no file, we should keep them running; a found opctl.yaml may turn it off, and the flag
  // wins over the file either way.
  {
    cli::CommonOptions options;
    CLI::App app;
    cli::add_source_flags(app, options);
    cli::add_keep_running_flag(app, options);
    app.parse("--path manifests", false);
    CHECK(options.keep_running);
    cli::apply_found_config(options, found_config("  keepRunning: false\n"));
    CHECK_FALSE(options.keep_running);
  }
  {
    cli::CommonOptions options;
    CLI::App app;
    cli::add_source_flags(app, options);
    cli::add_keep_running_flag(app, options);
    app.parse("--path manifests --keep-running", false);
    cli::apply_found_config(options, found_config("  keepRunning: false\n"));
    CHECK(options.keep_running);
  }
  {
    cli::CommonOptions options;
    CLI::App app;
    cli::add_source_flags(app, options);
    cli::add_keep_running_flag(app, options);
    app.parse("--path manifests --no-keep-running", false);
    cli::apply_found_config(options, found_config("  keepRunning: true\n"));
    CHECK_FALSE(options.keep_running);
  }
}

TEST_CASE("an opctl.yaml inside a git source cannot set where metrics are written or pushed",
          "[common_options][metrics]") {
  // Given a git source whose opctl.yaml sets spec.metrics, we should refuse it, naming file, line and field,
  // before any of its settings are taken.
  cli::CommonOptions options;
  options.source.repo = "https://git.example/ops.git";
  auto found = found_config(
      "  prune: true\n  metrics:\n    file: /etc/cron.d/opctl.prom\n    push:\n"
      "      url: http://attacker.example\n      authFile: /root/.ssh/id_ed25519\n");
  try {
    cli::apply_found_config(options, found);
    FAIL("a commit chose where metrics go");
  } catch (const InvalidInputError& error) {
    REQUIRE(error.problems().size() == 2);
    CHECK(error.problems()[0].file == "repo@abc1234:prod/opctl.yaml");
    CHECK(error.problems()[0].field == "spec.metrics.file");
    CHECK(error.problems()[0].line == 6);
    CHECK(error.problems()[1].field == "spec.metrics.push");
    CHECK(error.problems()[1].line == 7);
    CHECK_THAT(error.problems()[0].message, Catch::Contains("put spec.metrics in a -f file"));
  }
  CHECK_FALSE(options.prune);

  // A -f file wins over the one in the source: the source's metrics are not used, and not refused.
  cli::CommonOptions with_file;
  with_file.source.repo = "https://git.example/ops.git";
  with_file.config.file = "/etc/opctl/config/opctl.yaml";
  CHECK_NOTHROW(cli::apply_found_config(with_file, found));
}
