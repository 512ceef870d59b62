// Watches against the real API server: events in order, bookmarks, resuming
// after a dropped connection, and listing again after 410 Gone.
#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <mutex>
#include <thread>

#include "testenv.hpp"

using namespace opctl::integration;
using namespace std::chrono_literals;
namespace kube = opctl::kube;

namespace {

// Records "TYPE name" per event; stops at `stop_at`; runs `on_event` for side effects.
struct Recorder {
  explicit Recorder(std::string stop = "") : stop_at(std::move(stop)) {}
  std::string stop_at;
  std::function<void(const std::string&)> on_event = [](const std::string&) {};
  std::vector<std::string> seen;
  kube::WatchControl operator()(const kube::WatchEvent& event) {
    std::string line = event.type + " " + event.object["metadata"]["name"].get<std::string>();
    seen.push_back(line);
    on_event(line);
    return line == stop_at ? kube::WatchControl::stop : kube::WatchControl::keep_watching;
  }
};

long count_of(const std::vector<std::string>& lines, const std::string& line) {
  return std::count(lines.begin(), lines.end(), line);
}

kube::WatchOptions watch_options() {
  kube::WatchOptions options;
  options.timeout = 60s;
  options.field_selector = "metadata.name!=kube-root-ca.crt";
  return options;
}

}  // namespace

TEST_CASE("a watch lists what exists, then reports ADDED, MODIFIED and DELETED as they happen", "[watch]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  admin.apply(config_map(ns.name(), "before", {{"k", "1"}}));
  Client watcher(admin_config());
  auto info = watcher.resource("v1", "ConfigMap");

  std::promise<void> listed;
  Recorder recorder("DELETED during");
  recorder.on_event = [&](const std::string& line) {
    if (line == "ADDED before") listed.set_value();
  };
  // Another client changes things once the watch has listed.
  auto writer = std::async(std::launch::async, [&, future = listed.get_future()]() mutable {
    future.wait();
    Client other(admin_config());
    other.apply(config_map(ns.name(), "during", {{"k", "1"}}));
    other.apply(config_map(ns.name(), "during", {{"k", "2"}}));
    other.must(other.api.delete_request(other.resource("v1", "ConfigMap"), ns.name(), "during", {}));
  });
  auto result = watcher.api.watch(info, ns.name(), watch_options(), std::ref(recorder));
  writer.get();
  CHECK(result.stopped);
  CHECK(recorder.seen ==
        std::vector<std::string>{"ADDED before", "ADDED during", "MODIFIED during", "DELETED during"});
  CHECK_FALSE(result.resource_version.empty());
}

TEST_CASE("a quiet watch gets bookmarks, advances its resourceVersion and reconnects when the server ends it",
          "[watch]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  Client watcher(admin_config());
  auto info = watcher.resource("v1", "ConfigMap");
  // Something elsewhere moves the resourceVersion on while nothing here changes.
  kube::WatchOptions options = watch_options();
  options.timeout = 9s;
  options.request_timeout = 4s;  // the server sends a bookmark ~2 s before it ends a watch
  Recorder recorder;
  auto start_version = watcher.api.list_with_version(info, ns.name()).resource_version;
  auto result = watcher.api.watch(info, ns.name(), options, std::ref(recorder));
  CHECK_FALSE(result.stopped);
  CHECK(recorder.seen.empty());
  CHECK(result.connects >= 2);
  CHECK(result.bookmarks >= 1);
  CHECK(std::stoll(result.resource_version) >= std::stoll(start_version));
}

TEST_CASE("a watch resumes from its last resourceVersion when the connection drops", "[watch]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  Proxy proxy;
  Client watcher(proxy.config());
  auto info = watcher.resource("v1", "ConfigMap");
  admin.apply(config_map(ns.name(), "a", {{"k", "1"}}));

  SECTION("the proxy dies mid-stream and comes back on the same port") {
    std::future<void> breaker;
    Recorder recorder("ADDED b");
    recorder.on_event = [&](const std::string& line) {
      if (line != "ADDED a") return;
      breaker = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(300ms);  // let the watch request start
        proxy.restart();                     // SIGKILL: the stream breaks
        admin.apply(config_map(ns.name(), "b", {{"k", "1"}}));
      });
    };
    kube::WatchOptions options = watch_options();
    options.max_failures = 8;
    auto result = watcher.api.watch(info, ns.name(), options, std::ref(recorder));
    REQUIRE(breaker.valid());
    breaker.get();
    CHECK(result.stopped);
    CHECK(count_of(recorder.seen, "ADDED a") == 1);
    CHECK(count_of(recorder.seen, "ADDED b") == 1);
    CHECK(result.connects >= 2);
    CHECK(result.relists == 0);
  }
  SECTION("reconnects are reset twice; the third resumes where the list left off") {
    auto listed = watcher.api.list_with_version(info, ns.name());
    admin.apply(config_map(ns.name(), "b", {{"k", "1"}}));
    proxy.faults(Json::array(
        {{{"match", {{"method", "GET"}, {"queryRegex", "watch=1"}}}, {"action", "reset"}, {"times", 2}}}));
    proxy.reset_counts();
    kube::WatchOptions options = watch_options();
    options.resource_version = listed.resource_version;
    options.retry_delay = 50ms;
    Recorder recorder("ADDED b");
    auto result = watcher.api.watch(info, ns.name(), options, std::ref(recorder));
    CHECK(result.stopped);
    CHECK(recorder.seen == std::vector<std::string>{"ADDED b"});
    CHECK(result.connects == 3);
    CHECK(proxy.counts()["faulted"] == 2);
    proxy.faults(Json::array());
  }
}

TEST_CASE("a watch from a resourceVersion the server no longer has lists again (410 Gone)", "[watch]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  admin.apply(config_map(ns.name(), "existing", {{"k", "1"}}));
  Client watcher(admin_config());
  auto info = watcher.resource("v1", "ConfigMap");

  SECTION("the API server's own 410: resourceVersion 1 predates the watch cache of a new CRD") {
    // A custom resource's watch cache starts at the revision its CRD became
    // established, so resourceVersion 1 is always too old for it (for
    // ConfigMaps on a young control plane it may still be served).
    TestCrd crd(admin);
    auto gizmos = crd.resource(watcher);
    admin.apply(crd.object(ns.name(), "existing"));
    kube::WatchOptions options = watch_options();
    options.resource_version = "1";
    Recorder recorder("ADDED existing");
    auto result = watcher.api.watch(gizmos, ns.name(), options, std::ref(recorder));
    CHECK(result.stopped);
    CHECK(result.relists == 1);
    CHECK(recorder.seen == std::vector<std::string>{"ADDED existing"});
  }
  SECTION("an HTTP 410 from the proxy") {
    Proxy proxy;
    Client through_proxy(proxy.config());
    auto listed = through_proxy.api.list_with_version(info, ns.name());
    proxy.faults(Json::array(
        {{{"match", {{"queryRegex", "watch=1"}}}, {"action", "status"}, {"status", 410}, {"times", 1}}}));
    kube::WatchOptions options = watch_options();
    options.resource_version = listed.resource_version;
    Recorder recorder("ADDED later");
    recorder.on_event = [&](const std::string& line) {
      if (line == "ADDED existing") admin.apply(config_map(ns.name(), "later", {{"k", "1"}}));
    };
    auto result = through_proxy.api.watch(info, ns.name(), options, std::ref(recorder));
    CHECK(result.stopped);
    CHECK(result.relists == 1);
    CHECK(recorder.seen == std::vector<std::string>{"ADDED existing", "ADDED later"});
    proxy.faults(Json::array());
  }
}
