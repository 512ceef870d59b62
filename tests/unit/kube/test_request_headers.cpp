#include <algorithm>
#include <catch2/catch.hpp>

#include "kube/request_headers.hpp"
#include "model/base64.hpp"

using opctl::kube::ClusterConfig;
using opctl::kube::Credential;
using opctl::kube::HttpRequest;
using opctl::kube::request_headers;

namespace {
bool has(const std::vector<std::string>& headers, const std::string& line) {
  return std::find(headers.begin(), headers.end(), line) != headers.end();
}
bool has_prefix(const std::vector<std::string>& headers, const std::string& prefix) {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& line) { return line.rfind(prefix, 0) == 0; });
}
}  // namespace

TEST_CASE("basic auth sends the kubeconfig's username and password as an Authorization header", "[headers]") {
  ClusterConfig cluster;
  cluster.username = "admin";
  cluster.password = "s3cret:with-colon";
  auto headers = request_headers(HttpRequest{}, Credential{}, cluster);
  CHECK(has(headers, "Authorization: Basic " + opctl::model::base64_encode("admin:s3cret:with-colon")));
  CHECK(has(headers, "Authorization: Basic YWRtaW46czNjcmV0OndpdGgtY29sb24="));
}

TEST_CASE("a bearer token wins over basic auth; content type only when there is a body type", "[headers]") {
  ClusterConfig cluster;
  cluster.username = "admin";
  Credential credential;
  credential.bearer_token = "tok";
  HttpRequest request;
  request.accept = "application/json;as=Table";
  auto headers = request_headers(request, credential, cluster);
  CHECK(has(headers, "Authorization: Bearer tok"));
  CHECK_FALSE(has_prefix(headers, "Authorization: Basic"));
  CHECK(has(headers, "Accept: application/json;as=Table"));
  CHECK_FALSE(has_prefix(headers, "Content-Type:"));
  CHECK(has(headers, "Expect:"));
  request.content_type = "application/apply-patch+yaml";
  CHECK(has(request_headers(request, credential, cluster), "Content-Type: application/apply-patch+yaml"));
}

TEST_CASE("no Authorization header without credentials", "[headers]") {
  CHECK_FALSE(has_prefix(request_headers(HttpRequest{}, Credential{}, ClusterConfig{}), "Authorization:"));
}
