#include <catch2/catch.hpp>

#include "fake_transport.hpp"
#include "kube/api_client.hpp"

using opctl::kube::ApiClient;
using opctl::kube::ApiError;
using opctl::kube::ApiReason;
using opctl::kube::LineSplitter;
using opctl::kube::ResourceInfo;
using opctl::kube::RestMapper;
using opctl::kube::WatchControl;
using opctl::kube::WatchEvent;
using opctl::kube::WatchOptions;
using opctl::kube::WatchState;
using opctl::kube::testing::FakeTransport;
using opctl::model::Json;

namespace {

ResourceInfo config_maps() {
  ResourceInfo info;
  info.gvk = {"", "v1", "ConfigMap"};
  info.resource = "configmaps";
  info.namespaced = true;
  return info;
}

Json config_map(const std::string& name, const std::string& version) {
  return {{"metadata", {{"name", name}, {"namespace", "ns"}, {"resourceVersion", version}}}};
}

std::string event_line(const std::string& type, const Json& object) {
  return Json{{"type", type}, {"object", object}}.dump() + "\n";
}

std::string list_body(std::vector<Json> items, const std::string& version) {
  return Json{{"kind", "ConfigMapList"}, {"metadata", {{"resourceVersion", version}}}, {"items", items}}
      .dump();
}

const std::string k_list = "/api/v1/namespaces/ns/configmaps?limit=500";

struct Recorder {
  std::vector<std::string> seen;  // "TYPE name"
  std::string stop_at;
  WatchControl operator()(const WatchEvent& event) {
    std::string line = event.type + " " + event.object["metadata"]["name"].get<std::string>();
    seen.push_back(line);
    CHECK(event.object["kind"] == "ConfigMap");
    CHECK(event.object["apiVersion"] == "v1");
    return line == stop_at ? WatchControl::stop : WatchControl::keep_watching;
  }
};

WatchOptions fast_options() {
  WatchOptions options;
  options.retry_delay = std::chrono::milliseconds(1);
  options.timeout = std::chrono::seconds(10);
  return options;
}

}  // namespace

TEST_CASE("lines are split across chunks, and a partial line waits for its end", "[watch]") {
  LineSplitter splitter;
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) {
    lines.emplace_back(line);
    return true;
  };
  splitter.feed("a\nb", collect);
  splitter.feed("c\n\nd", collect);
  CHECK(lines == std::vector<std::string>{"a", "bc", ""});
  splitter.feed("\n", collect);
  CHECK(lines.back() == "d");
  CHECK_FALSE(splitter.feed("x\ny\n", [](std::string_view) { return false; }));
}

TEST_CASE("a list after a gap reports what was missed as ADDED, MODIFIED and DELETED", "[watch]") {
  WatchState state;
  auto first = state.replace({config_map("a", "1"), config_map("b", "1")});
  REQUIRE(first.size() == 2);
  CHECK(first[0].type == "ADDED");
  state.record({"MODIFIED", config_map("a", "2")});
  auto second = state.replace({config_map("a", "3"), config_map("c", "4")});
  REQUIRE(second.size() == 3);
  CHECK(second[0].type == "DELETED");
  CHECK(second[0].object["metadata"]["name"] == "b");
  CHECK(second[1].type == "MODIFIED");
  CHECK(second[2].type == "ADDED");
  CHECK(state.replace({config_map("a", "3"), config_map("c", "4")}).empty());
}

TEST_CASE("a watch lists, follows bookmarks, resumes after a break and lists again after 410", "[watch]") {
  FakeTransport server;
  server.answer(k_list, 200, list_body({config_map("a", "10")}, "100"));
  // After the 410: b is gone, a changed, c is new.
  server.answer(k_list, 200, list_body({config_map("a", "106"), config_map("c", "107")}, "200"));
  std::string modified = event_line("MODIFIED", config_map("a", "106"));
  server.streams.push_back(
      {200,
       {event_line("ADDED", config_map("b", "101")),
        event_line("BOOKMARK", {{"kind", "ConfigMap"}, {"metadata", {{"resourceVersion", "105"}}}})},
       "connection reset by peer"});
  server.streams.push_back({200,
                            {modified.substr(0, 20), modified.substr(20),
                             event_line("ERROR", {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}})},
                            ""});
  server.streams.push_back({200, {event_line("DELETED", config_map("a", "300"))}, ""});

  RestMapper mapper(server);
  ApiClient client(server, mapper);
  Recorder recorder{{}, "DELETED a"};
  auto result = client.watch(config_maps(), "ns", fast_options(), std::ref(recorder));

  CHECK(recorder.seen ==
        std::vector<std::string>{"ADDED a", "ADDED b", "MODIFIED a", "DELETED b", "ADDED c", "DELETED a"});
  CHECK(result.stopped);
  CHECK(result.connects == 3);
  CHECK(result.relists == 1);
  CHECK(result.bookmarks == 1);
  CHECK(result.resource_version == "300");
  std::vector<std::string> watch_paths;
  for (const auto& request : server.requests)
    if (request.path.find("watch=1") != std::string::npos) watch_paths.push_back(request.path);
  REQUIRE(watch_paths.size() == 3);
  CHECK_THAT(watch_paths[0],
             Catch::Contains("allowWatchBookmarks=true") && Catch::Contains("resourceVersion=100"));
  CHECK_THAT(watch_paths[1], Catch::Contains("resourceVersion=105"));
  CHECK_THAT(watch_paths[2], Catch::Contains("resourceVersion=200"));
}

TEST_CASE("a watch from a given resourceVersion does not list; an HTTP 410 makes it list", "[watch]") {
  FakeTransport server;
  server.answer(k_list, 200, list_body({config_map("a", "50")}, "60"));
  server.streams.push_back(
      {410, {R"({"kind":"Status","code":410,"reason":"Expired","message":"too old"})"}, ""});
  server.streams.push_back({200, {event_line("ADDED", config_map("z", "61"))}, ""});
  RestMapper mapper(server);
  ApiClient client(server, mapper);
  WatchOptions options = fast_options();
  options.resource_version = "1";
  options.label_selector = "app=web";
  Recorder recorder{{}, "ADDED z"};
  auto result = client.watch(config_maps(), "ns", options, std::ref(recorder));
  CHECK(recorder.seen == std::vector<std::string>{"ADDED a", "ADDED z"});
  CHECK(result.relists == 1);
  CHECK_THAT(server.requests.front().path,
             Catch::Contains("resourceVersion=1") && Catch::Contains("labelSelector=app%3Dweb"));
}

TEST_CASE("a watch stops when the handler says so, before any stream", "[watch]") {
  FakeTransport server;
  server.answer(k_list, 200, list_body({config_map("a", "1"), config_map("b", "2")}, "3"));
  RestMapper mapper(server);
  ApiClient client(server, mapper);
  Recorder recorder{{}, "ADDED a"};
  auto result = client.watch(config_maps(), "ns", fast_options(), std::ref(recorder));
  CHECK(result.stopped);
  CHECK(result.connects == 0);
  CHECK(recorder.seen.size() == 1);
}

TEST_CASE("a watch gives up on errors that reconnecting cannot fix", "[watch]") {
  FakeTransport server;
  server.answer(k_list, 200, list_body({}, "3"));
  RestMapper mapper(server);
  ApiClient client(server, mapper);
  Recorder recorder;
  SECTION("403 at the start") {
    server.streams.push_back(
        {403, {R"({"kind":"Status","code":403,"reason":"Forbidden","message":"no watching"})"}, ""});
    try {
      client.watch(config_maps(), "ns", fast_options(), std::ref(recorder));
      FAIL("no error");
    } catch (const ApiError& error) {
      CHECK(error.status().reason == ApiReason::forbidden);
    }
  }
  SECTION("an ERROR event that is not 410") {
    server.streams.push_back(
        {200,
         {event_line("ERROR",
                     {{"kind", "Status"}, {"code", 403}, {"reason", "Forbidden"}, {"message", "revoked"}})},
         ""});
    CHECK_THROWS_WITH(client.watch(config_maps(), "ns", fast_options(), std::ref(recorder)),
                      Catch::Contains("revoked"));
  }
  SECTION("a server that never answers: the failure budget") {
    WatchOptions options = fast_options();
    options.max_failures = 3;
    CHECK_THROWS_WITH(client.watch(config_maps(), "ns", options, std::ref(recorder)),
                      Catch::Contains("watch gave up after 3 failed connects") && Catch::Contains("\"3\""));
    CHECK(server.count("/api/v1/namespaces/ns/configmaps?watch=1") == 3);
  }
}

TEST_CASE("a 5xx ERROR event inside a stream is resumed like a dropped connection", "[watch]") {
  FakeTransport server;
  server.answer(k_list, 200, list_body({}, "3"));
  server.streams.push_back(
      {200, {event_line("ERROR", {{"kind", "Status"}, {"code", 500}, {"message", "etcd hiccup"}})}, ""});
  server.streams.push_back({200, {event_line("ADDED", config_map("a", "4"))}, ""});
  RestMapper mapper(server);
  ApiClient client(server, mapper);
  Recorder recorder{{}, "ADDED a"};
  auto result = client.watch(config_maps(), "ns", fast_options(), std::ref(recorder));
  CHECK(result.stopped);
  CHECK(result.connects == 2);
}

TEST_CASE("a watch returns unstopped when its timeout runs out", "[watch]") {
  FakeTransport server;
  server.answer(k_list, 200, list_body({}, "3"));
  RestMapper mapper(server);
  ApiClient client(server, mapper);
  WatchOptions options;
  options.timeout = std::chrono::milliseconds(100);
  options.retry_delay = std::chrono::milliseconds(30);
  options.max_failures = 1000;
  Recorder recorder;
  auto result = client.watch(config_maps(), "ns", options, std::ref(recorder));
  CHECK_FALSE(result.stopped);
  CHECK(result.resource_version == "3");
}
