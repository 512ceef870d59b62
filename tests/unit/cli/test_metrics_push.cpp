// --metrics-push URL: the grouping key job=opctl, set=<name> in the Pushgateway's URL form; a name the path
// cannot carry as it is goes percent-encoded, or base64 (set@base64) when it is empty or holds a '/'.
#include <catch2/catch.hpp>

#include "metrics_push.hpp"
#include "run_metrics_recorder.hpp"

using opctl::cli::pushgateway_group_url;

TEST_CASE("the set is the Pushgateway group beside job opctl", "[metrics_push]") {
  CHECK(pushgateway_group_url("http://gw:9091", "shop") == "http://gw:9091/metrics/job/opctl/set/shop");
  // given a trailing slash or a path prefix, we should keep the prefix and not double the slash
  CHECK(pushgateway_group_url("https://gw.example/push/", "shop") ==
        "https://gw.example/push/metrics/job/opctl/set/shop");
}

TEST_CASE("a set name the path cannot carry is encoded", "[metrics_push]") {
  CHECK(pushgateway_group_url("http://gw", "a b?") == "http://gw/metrics/job/opctl/set/a%20b%3F");
  // '/' would split the grouping key even percent-encoded (the Pushgateway decodes it first): base64 instead
  CHECK(pushgateway_group_url("http://gw", "team/shop") ==
        "http://gw/metrics/job/opctl/set@base64/dGVhbS9zaG9w");
  // an unnamed set: the empty value's base64 form
  CHECK(pushgateway_group_url("http://gw", "") == "http://gw/metrics/job/opctl/set@base64/=");
}

TEST_CASE("the flags win over spec.metrics, and a flag's URL never takes the file's credential",
          "[metrics_push][run_config]") {
  opctl::config::MetricsSettings config;
  config.file = "/var/lib/node-exporter/opctl.prom";
  config.push = opctl::config::MetricsPushSettings{"http://gw-from-file:9091", "", "GW_AUTH", 7};
  opctl::cli::MetricsOptions flags;
  // given no flags, we should take the file's settings whole
  auto taken = opctl::cli::metrics_options_of(flags, config);
  CHECK(taken.file == "/var/lib/node-exporter/opctl.prom");
  CHECK(taken.push.url == "http://gw-from-file:9091");
  CHECK(taken.push.auth_env == "GW_AUTH");
  // given --metrics-file and --metrics-push, we should use them, with no credential from the file
  flags.file = "/tmp/run.prom";
  flags.push.url = "http://other:9091";
  auto overridden = opctl::cli::metrics_options_of(flags, config);
  CHECK(overridden.file == "/tmp/run.prom");
  CHECK(overridden.push.url == "http://other:9091");
  CHECK(overridden.push.auth_env.empty());
  CHECK(overridden.push.auth_file.empty());
  // given only --metrics-push-auth-file, we should push to the file's URL with the flag's credential
  opctl::cli::MetricsOptions credential_only;
  credential_only.push.auth_file = "/etc/opctl/metrics-push/authorization";
  auto mixed = opctl::cli::metrics_options_of(credential_only, config);
  CHECK(mixed.push.url == "http://gw-from-file:9091");
  CHECK(mixed.push.auth_file == "/etc/opctl/metrics-push/authorization");
  CHECK(mixed.push.auth_env.empty());
}
