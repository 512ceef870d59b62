// Retries through the fault-injecting proxy: 429 with Retry-After, 503s,
// connection resets, a create that must not be repeated, and a server that
// never recovers.
#include <catch2/catch.hpp>

#include "testenv.hpp"

using namespace opctl::integration;
using namespace std::chrono_literals;
namespace kube = opctl::kube;

namespace {

kube::TransportOptions fast_retries() {
  kube::TransportOptions options;
  options.max_attempts = 4;
  options.initial_backoff = 10ms;
  options.max_backoff = 50ms;
  return options;
}

Json rule(const std::string& method, const std::string& path_regex, const Json& action) {
  Json r = action;
  r["match"] = {{"method", method}, {"pathRegex", path_regex}};
  return r;
}

long long path_count(const Json& counts, const std::string& key) {
  return counts["byPath"].contains(key) ? counts["byPath"][key].get<long long>() : 0;
}

}  // namespace

TEST_CASE("faults injected by the proxy are retried, or not, as the request allows", "[faults]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  admin.apply(config_map(ns.name(), "target", {{"k", "v"}}));
  Proxy proxy;
  Client client(proxy.config(), fast_retries());
  auto config_maps = client.resource("v1", "ConfigMap");
  const std::string object_path = "/api/v1/namespaces/" + ns.name() + "/configmaps/target";
  const std::string collection_path = "/api/v1/namespaces/" + ns.name() + "/configmaps";
  auto get = client.api.get_request(config_maps, ns.name(), "target");
  proxy.reset_counts();

  SECTION("429 with Retry-After: the client waits as told, then succeeds") {
    proxy.faults(
        Json::array({rule("GET", "^" + object_path + "$",
                          {{"action", "status"}, {"status", 429}, {"retryAfterSeconds", 1}, {"times", 1}})}));
    auto started = std::chrono::steady_clock::now();
    auto response = client.transport->send(get);
    auto elapsed = std::chrono::steady_clock::now() - started;
    CHECK(response.status == 200);
    CHECK(response.attempts == 2);
    CHECK(elapsed >= 900ms);  // loose: Retry-After is 1 s, the backoff alone would be 10-15 ms
    CHECK(path_count(proxy.counts(), "GET " + object_path) == 2);
  }
  SECTION("503 twice: retried, the third attempt succeeds") {
    proxy.faults(Json::array(
        {rule("GET", "^" + object_path + "$", {{"action", "status"}, {"status", 503}, {"times", 2}})}));
    auto result = client.api.execute(get);
    CHECK(result.ok());
    CHECK(result.object["data"]["k"] == "v");
    CHECK(path_count(proxy.counts(), "GET " + object_path) == 3);
    CHECK(client.transport->stats().retries == 2);
  }
  SECTION("a connection reset on a GET is retried") {
    proxy.faults(Json::array({rule("GET", "^" + object_path + "$", {{"action", "reset"}, {"times", 1}})}));
    auto response = client.transport->send(get);
    CHECK(response.status == 200);
    // Sent again, by opctl or, on a kept-alive HTTP/1.1 connection that died
    // before any answer, by libcurl itself within the first attempt.
    CHECK(path_count(proxy.counts(), "GET " + object_path) == 2);
    CHECK(response.attempts <= 2);
  }
  SECTION("a server-side apply that meets a 503 and a reset is retried (it is idempotent)") {
    proxy.faults(Json::array(
        {rule("PATCH", "^" + object_path + "$", {{"action", "status"}, {"status", 503}, {"times", 1}}),
         rule("PATCH", "^" + object_path + "$", {{"action", "reset"}, {"times", 1}})}));
    auto result = client.api.execute(client.api.apply_request(
        config_maps, opctl::model::Object(config_map(ns.name(), "target", {{"k", "applied"}})), {}));
    CHECK(result.ok());
    CHECK(path_count(proxy.counts(), "PATCH " + object_path) == 3);
    CHECK((*admin.get("v1", "ConfigMap", ns.name(), "target"))["data"]["k"] == "applied");
  }
  SECTION("a create that meets a reset is not sent again, and says why") {
    proxy.faults(
        Json::array({rule("POST", "^" + collection_path + "$", {{"action", "reset"}, {"times", 1}})}));
    auto create = client.api.create_request(
        config_maps, opctl::model::Object(config_map(ns.name(), "created", {{"k", "v"}})), false);
    auto response = client.transport->send(create);
    CHECK(response.status == 0);
    CHECK(response.attempts == 1);
    CHECK_THAT(response.transport_error, Catch::Contains("not retried"));
    auto result = client.api.execute(create);  // the fault is used up: this one lands
    CHECK(result.ok());
    CHECK(path_count(proxy.counts(), "POST " + collection_path) == 2);
  }
  SECTION("a create that meets 429 is retried: the server did not process it") {
    proxy.faults(
        Json::array({rule("POST", "^" + collection_path + "$",
                          {{"action", "status"}, {"status", 429}, {"retryAfterSeconds", 0}, {"times", 1}})}));
    auto result = client.api.execute(client.api.create_request(
        config_maps, opctl::model::Object(config_map(ns.name(), "after-429", {{"k", "v"}})), false));
    CHECK(result.ok());
    CHECK(path_count(proxy.counts(), "POST " + collection_path) == 2);
  }
  SECTION("a 503 that never ends gives up after the attempt budget, and the error counts the attempts") {
    proxy.faults(
        Json::array({rule("GET", "^" + object_path + "$", {{"action", "status"}, {"status", 503}})}));
    auto result = client.api.execute(get);
    CHECK(result.status.reason == kube::ApiReason::unavailable);
    CHECK(result.status.code == 503);
    CHECK_THAT(result.status.message, Catch::Contains("gave up after 4 attempts"));
    auto counts = proxy.counts();
    CHECK(path_count(counts, "GET " + object_path) == 4);
    CHECK(counts["faulted"] == 4);
  }
  proxy.faults(Json::array());
}

TEST_CASE("a response slower than the request timeout is a timeout: retried when idempotent", "[faults]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  admin.apply(config_map(ns.name(), "slow", {{"k", "v"}}));
  Proxy proxy;
  kube::TransportOptions options = fast_retries();
  options.request_timeout = 500ms;
  Client client(proxy.config(), options);
  auto config_maps = client.resource("v1", "ConfigMap");
  const std::string object_path = "/api/v1/namespaces/" + ns.name() + "/configmaps/slow";
  proxy.reset_counts();

  SECTION("one slow GET: the second attempt succeeds") {
    proxy.faults(Json::array(
        {rule("GET", "^" + object_path + "$", {{"action", "delay"}, {"delayMs", 3000}, {"times", 1}})}));
    auto response = client.transport->send(client.api.get_request(config_maps, ns.name(), "slow"));
    CHECK(response.status == 200);
    CHECK(response.attempts == 2);
    CHECK(path_count(proxy.counts(), "GET " + object_path) == 2);
  }
  SECTION("always slow: gives up after the budget with a timeout error") {
    proxy.faults(
        Json::array({rule("GET", "^" + object_path + "$", {{"action", "delay"}, {"delayMs", 3000}})}));
    auto result = client.api.execute(client.api.get_request(config_maps, ns.name(), "slow"));
    CHECK_FALSE(result.ok());
    CHECK(result.status.code == 0);
    CHECK_THAT(result.status.message, Catch::Contains("gave up after 4 attempts"));
    CHECK_THAT(result.status.message, Catch::Contains("imed out") || Catch::Contains("imeout"));
  }
  proxy.faults(Json::array());
}

TEST_CASE("a GET that stalls is abandoned after the stall timeout and sent again; a slow write is waited for",
          "[faults]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  admin.apply(config_map(ns.name(), "stalled", {{"k", "v"}}));
  Proxy proxy;
  kube::TransportOptions options = fast_retries();
  options.request_timeout = 60s;  // far longer than the delay: only the stall guard can cut it short
  options.read_stall_timeout = 1s;
  Client client(proxy.config(), options);
  auto config_maps = client.resource("v1", "ConfigMap");
  const std::string object_path = "/api/v1/namespaces/" + ns.name() + "/configmaps/stalled";
  proxy.reset_counts();

  SECTION("a GET silent for longer than the stall timeout: the second attempt succeeds") {
    proxy.faults(Json::array(
        {rule("GET", "^" + object_path + "$", {{"action", "delay"}, {"delayMs", 4000}, {"times", 1}})}));
    auto response = client.transport->send(client.api.get_request(config_maps, ns.name(), "stalled"));
    CHECK(response.status == 200);
    CHECK(response.attempts == 2);
    CHECK(path_count(proxy.counts(), "GET " + object_path) == 2);
  }
  SECTION("a write as slow is not abandoned") {
    proxy.faults(Json::array(
        {rule("PATCH", "^" + object_path, {{"action", "delay"}, {"delayMs", 3000}, {"times", 1}})}));
    auto result = client.api.execute(client.api.apply_request(
        config_maps, opctl::model::Object(config_map(ns.name(), "stalled", {{"k", "w"}})), {}));
    CHECK(result.ok());
    CHECK(path_count(proxy.counts(), "PATCH " + object_path) == 1);
    CHECK((*admin.get("v1", "ConfigMap", ns.name(), "stalled"))["data"]["k"] == "w");
  }
  proxy.faults(Json::array());
}
