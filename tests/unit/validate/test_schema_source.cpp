#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "kube/api_error.hpp"
#include "model/error.hpp"
#include "validate/schema_source.hpp"
#include "validate_fixtures.hpp"

using opctl::kube::HttpRequest;
using opctl::kube::HttpResponse;
using opctl::validate::ClusterSchemaSource;
using opctl::validate::DirectorySchemaSource;
namespace fs = std::filesystem;
namespace testing = opctl::validate::testing;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Serves /openapi/v3 and the fixture documents, and records what was asked.
class FakeApiServer : public opctl::kube::HttpTransport {
 public:
  std::vector<std::string> paths;
  long status = 200;
  // The hash of apps/v1 the server serves now. Index reads first hand out the
  // hashes in `stale_hashes`, as an index read just before a CRD changed does.
  std::string apps_hash = "BBBB";
  std::vector<std::string> stale_hashes;

  std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& requests) override {
    std::vector<HttpResponse> responses;
    for (const auto& request : requests) {
      paths.push_back(request.path);
      responses.push_back(respond(request.path));
    }
    return responses;
  }

 private:
  HttpResponse respond(const std::string& path) {
    if (status == 0) return {0, "", "Connection refused", 1};
    if (path == "/openapi/v3") {
      std::string hash = apps_hash;
      if (!stale_hashes.empty()) {
        hash = stale_hashes.front();
        stale_hashes.erase(stale_hashes.begin());
      }
      return {200,
              R"({"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=AAAA"},
                                 "apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=)" +
                  hash + R"("}}})",
              "", 1};
    }
    const std::string apps = "/openapi/v3/apis/apps/v1?hash=";
    if (path == apps + apps_hash) return {200, read(testing::schema_dir() + "/apis__apps__v1.json"), "", 1};
    if (path.starts_with(apps)) return {301, "", "", 1};  // as kube-openapi redirects a stale hash
    return {404, "", "", 1};
  }
};

struct TemporaryDirectory {
  fs::path path = fs::temp_directory_path() / ("opctl-schema-cache-" + std::to_string(::getpid()));
  TemporaryDirectory() { fs::remove_all(path); }
  ~TemporaryDirectory() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("a schema dir holds one file per group-version", "[validate][schemas]") {
  DirectorySchemaSource source(testing::schema_dir());
  auto set = source.load({"v1", "apps/v1", "policy/v1"});
  CHECK(set.documents.size() == 2);
  CHECK(set.documents.at("v1")->schema_for({"", "v1", "ConfigMap"}) != nullptr);
  CHECK(set.documents.at("v1")->namespaced({"", "v1", "Namespace"}) == false);
  CHECK(set.documents.at("apps/v1")->namespaced({"apps", "v1", "Deployment"}) == true);
  CHECK(set.missing.at("policy/v1") == "no file apis__policy__v1.json in " + testing::schema_dir());
}

TEST_CASE("a schema dir that does not exist is invalid input", "[validate][schemas]") {
  CHECK_THROWS_AS(DirectorySchemaSource("/nonexistent/schemas"), opctl::Error);
}

TEST_CASE("the cluster source fetches only the group-versions used, then reuses its cache",
          "[validate][schemas]") {
  TemporaryDirectory cache;
  FakeApiServer server;
  ClusterSchemaSource first(server, cache.path.string());
  auto set = first.load({"apps/v1", "example.com/v1"});
  CHECK(set.documents.at("apps/v1")->schema_for({"apps", "v1", "Deployment"}) != nullptr);
  CHECK(set.missing.at("example.com/v1") == "the cluster serves no OpenAPI document for it");
  CHECK(server.paths == std::vector<std::string>{"/openapi/v3", "/openapi/v3/apis/apps/v1?hash=BBBB"});
  CHECK(fs::exists(cache.path / "apis__apps__v1.BBBB.json"));

  // Given the same hash, a second run should only read the index.
  server.paths.clear();
  ClusterSchemaSource second(server, cache.path.string());
  CHECK(second.load({"apps/v1"}).documents.contains("apps/v1"));
  CHECK(server.paths == std::vector<std::string>{"/openapi/v3"});
}

TEST_CASE("a document whose hash moved after the index was read is fetched at its new hash",
          "[validate][schemas]") {
  TemporaryDirectory cache;
  FakeApiServer server;
  server.apps_hash = "CCCC";
  server.stale_hashes = {"BBBB"};
  ClusterSchemaSource source(server, cache.path.string());
  auto set = source.load({"apps/v1"});
  CHECK(set.documents.at("apps/v1")->schema_for({"apps", "v1", "Deployment"}) != nullptr);
  CHECK(server.paths == std::vector<std::string>{"/openapi/v3", "/openapi/v3/apis/apps/v1?hash=BBBB",
                                                 "/openapi/v3", "/openapi/v3/apis/apps/v1?hash=CCCC"});
  CHECK(fs::exists(cache.path / "apis__apps__v1.CCCC.json"));
  CHECK_FALSE(fs::exists(cache.path / "apis__apps__v1.BBBB.json"));
}

TEST_CASE("a document that moves while its group's CRDs change is read again with growing waits",
          "[validate][schemas]") {
  FakeApiServer server;
  server.apps_hash = "CCCC";
  server.stale_hashes = {"B1", "B2", "B3", "B4"};
  std::vector<std::chrono::milliseconds> waits;
  ClusterSchemaSource source(server, "", [&](std::chrono::milliseconds wait) { waits.push_back(wait); });
  CHECK(source.load({"apps/v1"}).documents.contains("apps/v1"));
  // The first read again is at once; then 250 ms, 500 ms, 1 s before the one that finds CCCC.
  CHECK(waits == std::vector<std::chrono::milliseconds>{std::chrono::milliseconds(250),
                                                        std::chrono::milliseconds(500),
                                                        std::chrono::milliseconds(1000)});
}

TEST_CASE("a document that keeps moving is left unsettled, naming it", "[validate][schemas]") {
  // Given apps/v1 moves on every read, we should give up after about 16 s and say why, without throwing:
  // validation decides whether a CRD's own schema can stand in for it.
  FakeApiServer server;
  server.apps_hash = "ZZZZ";
  server.stale_hashes = {"B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9"};
  std::chrono::milliseconds waited{0};
  ClusterSchemaSource source(server, "", [&](std::chrono::milliseconds wait) { waited += wait; });
  auto set = source.load({"apps/v1", "v1"});
  CHECK_FALSE(set.documents.contains("apps/v1"));
  CHECK(set.unsettled.at("apps/v1") ==
        "GET /openapi/v3/apis/apps/v1: the document changed 8 times in 15 s while it was read (a CRD "
        "of its group keeps changing?)");
  CHECK(set.unsettled.size() == 1);
  CHECK(waited == std::chrono::milliseconds(15750));
}

TEST_CASE("a document the index lists but the server no longer has is missing", "[validate][schemas]") {
  FakeApiServer server;
  auto set =
      ClusterSchemaSource(server, "").load({"v1"});  // the fake lists api/v1 but serves no such document
  CHECK(set.missing.at("v1") == "the cluster no longer serves an OpenAPI document for it");
  CHECK(set.documents.empty());
}

TEST_CASE("an unreachable cluster is an ApiError that says so", "[validate][schemas]") {
  FakeApiServer server;
  server.status = 0;
  ClusterSchemaSource source(server, "");
  try {
    source.load_index();
    FAIL("expected an ApiError");
  } catch (const opctl::kube::ApiError& error) {
    CHECK(error.status().reason == opctl::kube::ApiReason::unreachable);
  }
}

TEST_CASE("the hash of a serverRelativeURL", "[validate][schemas]") {
  CHECK(opctl::validate::url_hash("/openapi/v3/api/v1?hash=AB12") == "AB12");
  CHECK(opctl::validate::url_hash("/openapi/v3/api/v1?x=1&hash=CD") == "CD");
  CHECK(opctl::validate::url_hash("/openapi/v3/api/v1").empty());
}
