// --verbose logs requests, never credentials: not the bearer token, not the
// client key, not even in the error of a rejected token.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "model/base64.hpp"
#include "testenv.hpp"

using namespace opctl::integration;
namespace kube = opctl::kube;

namespace {

// Everything written to file descriptor 2 while it lives.
class StderrCapture {
 public:
  explicit StderrCapture(const ScratchDir& dir) : file_((dir.path / "stderr").string()) {
    saved_ = dup(2);
    int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
  }
  ~StderrCapture() { restore(); }
  std::string finish() {
    restore();
    std::ifstream in(file_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::string file_;
  int saved_ = -1;
};

// A distinctive line of a PEM's base64 body.
std::string pem_fragment(const std::string& pem) {
  std::istringstream lines(pem);
  std::string line;
  std::getline(lines, line);  // -----BEGIN ...
  std::getline(lines, line);
  return line.substr(0, 40);
}

void exercise(Client& client, const std::string& ns) {
  auto config_maps = client.resource("v1", "ConfigMap");
  client.api.list(config_maps, ns);
  client.api.execute(client.api.get_request(config_maps, ns, "does-not-exist"));
  client.api.execute(client.api.apply_request(
      config_maps, opctl::model::Object(config_map(ns, "logged", {{"k", "v"}})), {}));
}

}  // namespace

TEST_CASE("verbose logging shows requests but never a bearer token or client key", "[logging]") {
  Client admin(admin_config());
  TestNamespace ns(admin);
  admin.apply({{"apiVersion", "v1"},
               {"kind", "ServiceAccount"},
               {"metadata", {{"name", "writer"}, {"namespace", ns.name()}}}});
  admin.apply(
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "RoleBinding"},
       {"metadata", {{"name", "writer"}, {"namespace", ns.name()}}},
       {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "edit"}}},
       {"subjects", {{{"kind", "ServiceAccount"}, {"name", "writer"}, {"namespace", ns.name()}}}}});
  std::string token = mint_token(ns.name(), "writer");
  std::string key_fragment = pem_fragment(admin.config.client_key_pem);
  REQUIRE(key_fragment.size() > 20);

  ScratchDir dir;
  std::vector<std::string> sink;
  kube::TransportOptions options;
  options.verbose = true;
  options.log = [&sink](const std::string& line) { sink.push_back(line); };

  StderrCapture capture(dir);
  kube::ClusterConfig bearer = admin_config();
  bearer.client_cert_pem.clear();
  bearer.client_key_pem.clear();
  bearer.token = token;
  Client with_token(bearer, options);
  exercise(with_token, ns.name());
  Client with_cert(admin_config(), options);
  exercise(with_cert, ns.name());

  // A rejected token: the 401's error says so without repeating the token.
  kube::ClusterConfig rejected = bearer;
  rejected.token = "opctl-it-not-a-real-token-" + unique_name("x");
  Client bad(rejected, options);
  std::string unauthorized;
  try {
    bad.mapper.all();
  } catch (const kube::ApiError& error) {
    CHECK(error.status().reason == kube::ApiReason::unauthorized);
    unauthorized = error.what();
  }
  std::string written_to_stderr = capture.finish();

  REQUIRE_FALSE(unauthorized.empty());
  CHECK_THAT(unauthorized, Catch::Contains("credentials") && !Catch::Contains(rejected.token));
  REQUIRE(sink.size() >= 8);
  bool saw_request_line = false;
  for (const auto& line : sink) {
    CHECK_THAT(line, !Catch::Contains(token) && !Catch::Contains(rejected.token) &&
                         !Catch::Contains(key_fragment) && !Catch::Contains("Authorization") &&
                         !Catch::Contains("Bearer"));
    saw_request_line |=
        line.find("PATCH /api/v1/namespaces/" + ns.name() + "/configmaps/logged") != std::string::npos;
  }
  CHECK(saw_request_line);
  // With a sink, nothing goes to standard error.
  CHECK(written_to_stderr.empty());
}
