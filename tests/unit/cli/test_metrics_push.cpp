// --metrics-push URL: the grouping key job=opctl, set=<name> in the Pushgateway's URL form; a name the path
// cannot carry as it is goes percent-encoded, or base64 (set@base64) when it is empty or holds a '/'.
#include <catch2/catch.hpp>

#include "metrics_push.hpp"

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
