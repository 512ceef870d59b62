#include <catch2/catch.hpp>

#include "fake_transport.hpp"
#include "kube/api_client.hpp"

using opctl::kube::ApiClient;
using opctl::kube::ApiError;
using opctl::kube::ApiReason;
using opctl::kube::ResourceInfo;
using opctl::kube::RestMapper;
using opctl::kube::testing::FakeTransport;
using opctl::model::Json;

namespace {

ResourceInfo widgets() {
  ResourceInfo info;
  info.gvk = {"example.com", "v1", "Widget"};
  info.resource = "widgets";
  info.namespaced = true;
  info.subresources = {"status"};
  return info;
}

opctl::model::Object widget() {
  return opctl::model::Object(Json{{"apiVersion", "example.com/v1"},
                                   {"kind", "Widget"},
                                   {"metadata", {{"name", "w 1"}, {"namespace", "shop"}}}});
}

struct ApiClientFixture {
  FakeTransport server;
  RestMapper mapper{server};
  ApiClient client{server, mapper};
};

}  // namespace

TEST_CASE("status requests go to the status subresource, before the query", "[api_client]") {
  ApiClientFixture f;
  auto apply = f.client.apply_status_request(widgets(), widget(), {"opctl-status", true, true});
  CHECK(apply.method == "PATCH");
  CHECK(apply.path ==
        "/apis/example.com/v1/namespaces/shop/widgets/w%201/"
        "status?fieldManager=opctl-status&force=true&dryRun=All");
  CHECK(apply.content_type == "application/apply-patch+yaml");

  auto patch = f.client.patch_status_request(widgets(), "shop", "w 1", {{"status", {{"phase", "Ready"}}}},
                                             {"opctl", true});
  CHECK(patch.path ==
        "/apis/example.com/v1/namespaces/shop/widgets/w%201/status?fieldManager=opctl&dryRun=All");
  CHECK(patch.content_type == "application/merge-patch+json");
  CHECK(Json::parse(patch.body) == Json{{"status", {{"phase", "Ready"}}}});

  auto plain = f.client.patch_request(widgets(), "shop", "w 1", Json::object(), {"", false});
  CHECK(plain.path == "/apis/example.com/v1/namespaces/shop/widgets/w%201");
}

TEST_CASE("delete sends propagation policy, preconditions and dry run in DeleteOptions", "[api_client]") {
  ApiClientFixture f;
  opctl::kube::DeleteOptions options;
  options.propagation_policy = "Foreground";
  options.precondition_uid = "u-1";
  options.precondition_resource_version = "42";
  options.dry_run = true;
  auto request = f.client.delete_request(widgets(), "shop", "w", options);
  CHECK(request.method == "DELETE");
  CHECK(request.path == "/apis/example.com/v1/namespaces/shop/widgets/w?dryRun=All");
  Json body = Json::parse(request.body);
  CHECK(body["kind"] == "DeleteOptions");
  CHECK(body["propagationPolicy"] == "Foreground");
  CHECK(body["preconditions"] == Json{{"uid", "u-1"}, {"resourceVersion", "42"}});
  CHECK(body["dryRun"] == Json::array({"All"}));
}

TEST_CASE("create is never retried blindly; dry run goes in the query", "[api_client]") {
  ApiClientFixture f;
  auto request = f.client.create_request(widgets(), widget(), true);
  CHECK(request.method == "POST");
  CHECK(request.path == "/apis/example.com/v1/namespaces/shop/widgets?dryRun=All");
  CHECK_FALSE(request.retryable);
}

TEST_CASE("list follows continue tokens and sets apiVersion and kind on the items", "[api_client]") {
  ApiClientFixture f;
  const std::string base = "/apis/example.com/v1/namespaces/shop/widgets?limit=2&labelSelector=app%3Dweb";
  f.server.answer(
      base, 200,
      R"({"metadata":{"continue":"tok/1","resourceVersion":"7"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  f.server.answer(base + "&continue=tok%2F1", 200,
                  R"({"metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"c"}}]})");
  opctl::kube::ListOptions options;
  options.page_size = 2;
  options.label_selector = "app=web";
  auto items = f.client.list(widgets(), "shop", options);
  REQUIRE(items.size() == 3);
  CHECK(items[2]["kind"] == "Widget");
  CHECK(items[2]["apiVersion"] == "example.com/v1");
  CHECK(f.server.requests.size() == 2);
}

TEST_CASE("keep_item cuts each list item down as it is parsed and drops the items it refuses",
          "[api_client]") {
  ApiClientFixture f;
  const std::string base = "/apis/example.com/v1/namespaces/shop/widgets?limit=500";
  f.server.answer(
      base, 200,
      R"({"metadata":{"resourceVersion":"7"},"items":[)"
      R"({"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"big":[1,2,3]}},)"
      R"({"metadata":{"name":"b"},"spec":{"nested":{"items":[{"metadata":{"name":"inner"}}]}}}]})");
  std::vector<std::string> seen;
  opctl::kube::ListOptions options;
  options.keep_item = [&](Json& item) {
    seen.push_back(item["metadata"].value("name", "") + " " + item.value("kind", ""));
    item.erase("spec");
    return item["metadata"]["name"] == "a";
  };
  auto items = f.client.list(widgets(), "shop", options);
  // Only the items themselves are offered, never an object nested in one.
  CHECK(seen == std::vector<std::string>{"a Widget", "b Widget"});
  REQUIRE(items.size() == 1);
  CHECK(items[0] == Json{{"apiVersion", "example.com/v1"},
                         {"kind", "Widget"},
                         {"metadata", {{"name", "a"}, {"labels", {{"x", "1"}}}}}});
}

TEST_CASE("an expired continue token starts the list over", "[api_client]") {
  ApiClientFixture f;
  const std::string base = "/api/v1/namespaces/shop/configmaps?limit=1";
  ResourceInfo info;
  info.gvk = {"", "v1", "ConfigMap"};
  info.resource = "configmaps";
  info.namespaced = true;
  // First pass: page 1, then the token has expired; second pass: both pages.
  f.server.answer(base, 200, R"({"metadata":{"continue":"old"},"items":[{"metadata":{"name":"a"}}]})");
  f.server.answer(base, 200, R"({"metadata":{"continue":"new"},"items":[{"metadata":{"name":"a"}}]})");
  f.server.answer(base + "&continue=old", 410,
                  R"({"kind":"Status","code":410,"reason":"Expired","message":"continue too old"})");
  f.server.answer(base + "&continue=new", 200, R"({"metadata":{},"items":[{"metadata":{"name":"b"}}]})");
  opctl::kube::ListOptions options;
  options.page_size = 1;
  auto items = f.client.list(info, "shop", options);
  REQUIRE(items.size() == 2);
  CHECK(items[1]["metadata"]["name"] == "b");
}

TEST_CASE("a list error is a typed ApiError; page_size 0 sends no limit", "[api_client]") {
  ApiClientFixture f;
  f.server.answer(
      "/apis/example.com/v1/widgets", 403,
      R"({"kind":"Status","code":403,"reason":"Forbidden","message":"widgets is forbidden: User \"u\" cannot list"})");
  opctl::kube::ListOptions options;
  options.page_size = 0;
  try {
    f.client.list(widgets(), "", options);
    FAIL("no error");
  } catch (const ApiError& error) {
    CHECK(error.status().reason == ApiReason::forbidden);
    CHECK_THAT(error.what(), Catch::Contains("User \"u\""));
  }
  CHECK(f.server.requests.back().path == "/apis/example.com/v1/widgets");
}

TEST_CASE("list_all reads many collections at once, each to its last page, in order", "[api_client]") {
  // Given two namespaces with two pages and one with a forbidden list,
  ApiClientFixture f;
  const std::string a = "/apis/example.com/v1/namespaces/a/widgets?limit=500";
  const std::string b = "/apis/example.com/v1/namespaces/b/widgets?limit=500";
  const std::string c = "/apis/example.com/v1/namespaces/c/widgets?limit=500";
  f.server.answer(a, 200, R"({"metadata":{"continue":"a2"},"items":[{"metadata":{"name":"a1"}}]})");
  f.server.answer(a + "&continue=a2", 200, R"({"metadata":{},"items":[{"metadata":{"name":"a2"}}]})");
  f.server.answer(b, 200, R"({"metadata":{},"items":[{"metadata":{"name":"b1"}}]})");
  f.server.answer(c, 403, R"({"kind":"Status","code":403,"reason":"Forbidden","message":"no"})");
  std::vector<opctl::kube::ListTarget> targets;
  for (const std::string namespace_name : {"a", "b", "c"})
    targets.push_back({widgets(), namespace_name, {}, ""});
  // when they are read together,
  auto outcomes = f.client.list_all(targets);
  // then the first pages go out in one batch, the second page alone after it,
  CHECK(f.server.batch_sizes == std::vector<std::size_t>{3, 1});
  // and each outcome is its own target's, the error only where it happened.
  REQUIRE(outcomes.size() == 3);
  REQUIRE(outcomes[0].ok());
  REQUIRE(outcomes[0].items.size() == 2);
  CHECK(outcomes[0].items[1]["metadata"]["name"] == "a2");
  CHECK(outcomes[0].items[1]["kind"] == "Widget");
  REQUIRE(outcomes[1].items.size() == 1);
  CHECK(outcomes[1].items[0]["metadata"]["name"] == "b1");
  CHECK_FALSE(outcomes[2].ok());
  CHECK(outcomes[2].status.reason == ApiReason::forbidden);
  CHECK(outcomes[2].items.empty());
}

TEST_CASE("list_all keeps at most a window of lists in flight and refills it as lists end", "[api_client]") {
  ApiClientFixture f;
  // Namespace n0 has three pages; every other namespace one.
  const std::string first = "/apis/example.com/v1/namespaces/n0/widgets?limit=500";
  f.server.answer(first, 200, R"({"metadata":{"continue":"p2"},"items":[]})");
  f.server.answer(first + "&continue=p2", 200, R"({"metadata":{"continue":"p3"},"items":[]})");
  f.server.answer(first + "&continue=p3", 200, R"({"metadata":{},"items":[{"metadata":{"name":"last"}}]})");
  std::vector<opctl::kube::ListTarget> targets;
  const std::size_t count = ApiClient::k_list_window + 4;
  for (std::size_t i = 0; i < count; ++i) {
    std::string namespace_name = "n" + std::to_string(i);
    if (i > 0)
      f.server.answer("/apis/example.com/v1/namespaces/" + namespace_name + "/widgets", 200,
                      R"({"metadata":{},"items":[{"metadata":{"name":"w"}}]})");
    targets.push_back({widgets(), namespace_name, {}, ""});
  }
  auto outcomes = f.client.list_all(targets);
  // A full window, then n0's second page with the four waiting lists, then its third page.
  CHECK(f.server.batch_sizes == std::vector<std::size_t>{ApiClient::k_list_window, 5, 1});
  REQUIRE(outcomes.size() == count);
  for (const auto& outcome : outcomes) {
    REQUIRE(outcome.ok());
    CHECK(outcome.items.size() == 1);
  }
  CHECK(outcomes[0].items[0]["metadata"]["name"] == "last");
}

TEST_CASE("max_pages stops list_all early with the token to go on from; list reads the whole collection",
          "[api_client]") {
  ApiClientFixture f;
  const std::string base = "/apis/example.com/v1/namespaces/shop/widgets?limit=500";
  f.server.answer(base, 200, R"({"metadata":{"continue":"p2"},"items":[{"metadata":{"name":"a"}}]})");
  f.server.answer(base + "&continue=p2", 200, R"({"metadata":{},"items":[{"metadata":{"name":"b"}}]})");
  opctl::kube::ListOptions one_page;
  one_page.max_pages = 1;
  // One page, and where it stopped,
  auto first = f.client.list_all({{widgets(), "shop", one_page, ""}});
  REQUIRE(first.front().ok());
  CHECK(first.front().items.size() == 1);
  CHECK(first.front().continue_token == "p2");
  // from which a later list goes on.
  auto rest = f.client.list_all({{widgets(), "shop", one_page, first.front().continue_token}});
  REQUIRE(rest.front().items.size() == 1);
  CHECK(rest.front().items[0]["metadata"]["name"] == "b");
  CHECK(rest.front().continue_token.empty());
  // list() has no way to say that it stopped early, so it never does.
  CHECK(f.client.list(widgets(), "shop", one_page).size() == 2);
}

TEST_CASE("the write gate is asked before every chunk of writes and stops the rest unsent", "[api_client]") {
  // Given 70 applies and a gate that refuses on its third call, we should send two chunks of 32 and no more.
  ApiClientFixture f;
  int asked = 0;
  f.client.set_write_gate([&] {
    if (++asked == 3) throw opctl::Error(opctl::ErrorCategory::lock_held, "lost the Lease");
  });
  std::vector<opctl::kube::HttpRequest> applies;
  for (int i = 0; i < 70; ++i)
    applies.push_back(f.client.apply_request(widgets(), widget(), {}));
  CHECK_THROWS_AS(f.client.execute(applies), opctl::Error);
  CHECK(asked == 3);
  CHECK(f.server.requests.size() == 64);
}

TEST_CASE("reads never ask the write gate", "[api_client]") {
  // Given a gate that always refuses, we should still read.
  ApiClientFixture f;
  f.client.set_write_gate([] { throw opctl::Error(opctl::ErrorCategory::lock_held, "lost the Lease"); });
  CHECK_NOTHROW(f.client.execute(f.client.get_request(widgets(), "shop", "w")));
}

TEST_CASE("a server error names the request it answered", "[api_client]") {
  // Given a 500 with a Status message, we should say which method and path met it.
  opctl::kube::HttpResponse response;
  response.status = 500;
  response.attempts = 5;
  response.body =
      R"({"kind":"Status","code":500,"reason":"InternalError","message":"etcdserver: request timed out"})";
  auto status = opctl::kube::decode_status(response, "PATCH /api/v1/namespaces/shop/secrets/db");
  CHECK(status.describe() ==
        "PATCH /api/v1/namespaces/shop/secrets/db: HTTP 500: etcdserver: request timed out (gave up after 5 "
        "attempts)");
  response.status = 404;
  response.body = R"({"kind":"Status","code":404,"reason":"NotFound","message":"secrets \"db\" not found"})";
  response.attempts = 1;
  CHECK(opctl::kube::decode_status(response, "GET /x").describe() == "secrets \"db\" not found");
}
