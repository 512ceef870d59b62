// Many server-side applies at once over HTTP/2: the same cluster state as one
// at a time, on one connection. Reads in flight at once take HTTP/1.1
// connections of their own, which later batches reuse.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <iostream>
#include <map>

#include "testenv.hpp"

using namespace opctl::integration;
namespace kube = opctl::kube;

namespace {

// The transport's counters gained since `before`.
kube::TransportStats gained(const kube::TransportStats& before, const kube::TransportStats& after) {
  return {after.requests - before.requests, after.retries - before.retries,
          after.http2_responses - before.http2_responses, after.connections - before.connections};
}

struct Applied {
  std::map<std::string, Json> data;  // name -> data
  kube::TransportStats stats;
  double seconds = 0;
};

Applied apply_all(const std::string& ns, int concurrency, int count) {
  kube::TransportOptions options;
  options.concurrency = concurrency;
  options.qps = 0;  // measure the transport, not the rate limiter
  Client client(admin_config(), options);
  auto info = client.resource("v1", "ConfigMap");
  std::vector<kube::HttpRequest> requests;
  for (int i = 0; i < count; ++i) {
    Json data = {{"index", std::to_string(i)}, {"square", std::to_string(i * i)}};
    requests.push_back(client.api.apply_request(
        info, opctl::model::Object(config_map(ns, fmt::format("c-{:04}", i), data)), {}));
  }
  auto before = client.transport->stats();  // discovery's reads left out
  auto started = std::chrono::steady_clock::now();
  auto results = client.api.execute(requests);
  Applied applied;
  applied.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const auto& result : results)
    REQUIRE(result.ok());
  applied.stats = gained(before, client.transport->stats());
  for (const auto& item : client.api.list(info, ns)) {
    std::string name = item["metadata"]["name"];
    if (name == "kube-root-ca.crt") continue;
    CHECK_FALSE(item["metadata"]["resourceVersion"].get<std::string>().empty());
    CHECK(item["metadata"]["managedFields"][0]["manager"] == "opctl");
    applied.data[name] = item["data"];
  }
  return applied;
}

}  // namespace

TEST_CASE("1,000 applies with concurrency 16 over HTTP/2 leave the same state as one at a time",
          "[concurrency]") {
  Client admin(admin_config());
  TestNamespace serial_ns(admin), parallel_ns(admin);
  Applied serial = apply_all(serial_ns.name(), 1, 1000);
  Applied parallel = apply_all(parallel_ns.name(), 16, 1000);
  std::cout << fmt::format(
      "1000 applies: concurrency 1 {:.1f}s ({} connections), concurrency 16 {:.1f}s ({} connections, "
      "{} HTTP/2 responses)\n",
      serial.seconds, serial.stats.connections, parallel.seconds, parallel.stats.connections,
      parallel.stats.http2_responses);
  CHECK(serial.data.size() == 1000);
  CHECK(parallel.data == serial.data);
  CHECK(parallel.stats.requests >= 1000);
  // Every answer came over HTTP/2, multiplexed on one connection.
  CHECK(parallel.stats.http2_responses == parallel.stats.requests);
  CHECK(parallel.stats.connections == 1);
  CHECK(serial.stats.connections == 1);
}

TEST_CASE("Reads go over a pool of HTTP/1.1 connections that the next batch reuses; writes stay on HTTP/2",
          "[concurrency]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  kube::TransportOptions options;
  options.concurrency = 8;
  options.qps = 0;
  Client client(admin_config(), options);
  auto info = client.resource("v1", "ConfigMap");
  std::vector<kube::HttpRequest> applies, gets;
  for (int i = 0; i < 40; ++i) {
    std::string name = fmt::format("c-{:02}", i);
    applies.push_back(client.api.apply_request(
        info, opctl::model::Object(config_map(ns.name(), name, {{"index", std::to_string(i)}})), {}));
    gets.push_back(client.api.get_request(info, ns.name(), name));
  }
  auto send = [&](const std::vector<kube::HttpRequest>& requests) {
    auto before = client.transport->stats();
    for (const auto& result : client.api.execute(requests))
      REQUIRE(result.ok());
    return gained(before, client.transport->stats());
  };

  auto first_writes = send(applies);
  auto first_reads = send(gets);
  auto second_reads = send(gets);
  auto second_writes = send(applies);

  // Writes: every answer over HTTP/2, one connection for all of them.
  CHECK(first_writes.http2_responses == 40);
  CHECK(first_writes.connections == 1);
  CHECK(second_writes.http2_responses == 40);
  CHECK(second_writes.connections == 0);
  // Reads: HTTP/1.1, several connections at once (at most one per read in
  // flight), and a second batch opens none.
  CHECK(first_reads.http2_responses == 0);
  CHECK(first_reads.connections >= 2);
  CHECK(first_reads.connections <= 8);
  CHECK(second_reads.http2_responses == 0);
  CHECK(second_reads.connections == 0);
}
