// Golden-file tests of the diff renderers: given hand-built diffs of every
// kind, the text, Markdown and JSON output should match the files in golden/
// byte for byte. After an intended change, rewrite them with
//   OPCTL_UPDATE_GOLDEN=1 opctl_tests "[golden]"
// and review the change to the golden files like any other.
#include <catch2/catch.hpp>

#include "diff/object_diff.hpp"
#include "diff_render.hpp"
#include "support/golden.hpp"

using namespace opctl;
using diff::Change;
using diff::ObjectDiff;
using model::Json;
using opctl::testing::check_golden;

namespace {

Json object(const std::string& api_version, const std::string& kind, const std::string& name, Json rest) {
  Json body = {
      {"apiVersion", api_version}, {"kind", kind}, {"metadata", {{"name", name}, {"namespace", "shop"}}}};
  body.update(rest);
  return body;
}

ObjectDiff compare(const std::string& group, const Json& before, const Json& after, int line) {
  const Json& any = before.is_null() ? after : before;
  model::ObjectKey key{group, any["kind"], "shop", any["metadata"]["name"]};
  return diff::compare_objects(key, any["apiVersion"], {"apps/shop.yaml", line}, before, after, {});
}

Json deployment(int replicas, const std::string& image) {
  return object("apps/v1", "Deployment", "web",
                {{"spec",
                  {{"replicas", replicas},
                   {"selector", {{"matchLabels", {{"app", "web"}}}}},
                   {"template",
                    {{"metadata", {{"labels", {{"app", "web"}}}}},
                     {"spec", {{"containers", {{{"name", "web"}, {"image", image}}}}}}}}}}});
}

// One diff of every kind the renderers must show.
std::vector<ObjectDiff> every_kind() {
  std::vector<ObjectDiff> diffs;
  diffs.push_back(
      compare("", Json(), object("v1", "ConfigMap", "settings", {{"data", {{"LOG_LEVEL", "info"}}}}), 1));
  diffs.push_back(compare("apps", deployment(2, "nginx:1.27"), deployment(3, "nginx:1.28"), 7));

  auto secret = [](const std::string& password) {
    return object("v1", "Secret", "db",
                  {{"type", "Opaque"}, {"data", {{"password", password}, {"user", "YWRtaW4="}}}});
  };
  diffs.push_back(compare("", secret("b2xkLXBhc3N3b3Jk"), secret("bmV3LXBhc3N3b3Jk"), 20));

  Json service =
      object("v1", "Service", "web", {{"spec", {{"ports", {{{"port", 80}, {"protocol", "TCP"}}}}}}});
  Json wider = service;
  wider["spec"]["ports"].push_back({{"port", 443}, {"protocol", "TCP"}});
  diffs.push_back(compare("", service, wider, 30));
  diffs.back().local_comparison = true;

  Json settings = object("v1", "ConfigMap", "flags", {{"data", {{"checkout", "on"}}}});
  Json taken_back = settings;
  taken_back["data"]["checkout"] = "off";
  diffs.push_back(compare("", settings, taken_back, 40));
  diffs.back().conflict =
      "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.checkout";

  diffs.push_back(compare("", object("v1", "ConfigMap", "old", {{"data", {{"a", "b"}}}}), Json(), 0));
  diffs.back().location = {};

  Json job = object("batch/v1", "Job", "migrate", {{"spec", {{"backoffLimit", 1}}}});
  diffs.push_back(compare("batch", job, job, 50));
  diffs.back().change = Change::failed;
  diffs.back().error = "Job.batch \"migrate\" is invalid: spec.template: Invalid value: field is immutable";

  diffs.push_back(compare("", object("v1", "ConfigMap", "same", {{"data", {{"a", "b"}}}}),
                          object("v1", "ConfigMap", "same", {{"data", {{"a", "b"}}}}), 60));
  return diffs;
}

source::SourceRevision revision() {
  source::SourceRevision revision;
  revision.repo = "https://git.example/ops.git";
  revision.ref = "main";
  revision.commit = "0123456789abcdef0123456789abcdef01234567";
  revision.subject = "Scale web to 3";
  revision.path = "apps";
  revision.signer = {"ssh", true, "alice@example.com", "ED25519 SHA256:c2lnbmVk"};
  return revision;
}

}  // namespace

TEST_CASE("given diffs of every kind, the text output matches its golden file", "[golden][diffrender]") {
  check_golden("diff.txt", cli::render_diff_text(every_kind(), {}));
}

TEST_CASE("quiet text shows only failures and the summary", "[golden][diffrender]") {
  check_golden("diff-quiet.txt", cli::render_diff_text(every_kind(), {cli::Palette{}, true}));
}

TEST_CASE("given diffs of every kind, the Markdown output matches its golden file", "[golden][diffrender]") {
  check_golden("diff.md", cli::render_diff_markdown(every_kind(), revision()));
}

TEST_CASE("given diffs of every kind, the JSON report matches its golden file", "[golden][diffrender]") {
  check_golden("diff.json", cli::render_diff_json(every_kind(), revision()).dump(2) + "\n");
}

TEST_CASE("in sync, every format says so", "[golden][diffrender]") {
  std::vector<ObjectDiff> none = {every_kind().back()};
  check_golden("in-sync.txt", cli::render_diff_text(none, {}));
  check_golden("in-sync.md", cli::render_diff_markdown(none, revision()));
}

TEST_CASE("no Secret value reaches any output format", "[diffrender][secrets]") {
  auto diffs = every_kind();
  std::string outputs = cli::render_diff_text(diffs, {}) + cli::render_diff_markdown(diffs, revision()) +
                        cli::render_diff_json(diffs, revision()).dump();
  for (const char* value :
       {"b2xkLXBhc3N3b3Jk", "bmV3LXBhc3N3b3Jk", "YWRtaW4=", "old-password", "new-password"})
    CHECK(outputs.find(value) == std::string::npos);
}

TEST_CASE("colour is ANSI on request only, and never changes the text", "[diffrender]") {
  auto diffs = every_kind();
  std::string plain = cli::render_diff_text(diffs, {});
  std::string coloured = cli::render_diff_text(diffs, {cli::Palette{true}});
  CHECK(plain.find('\033') == std::string::npos);
  CHECK(coloured.find("\033[31m-  replicas: 2\033[0m") != std::string::npos);
  CHECK(coloured.find("\033[32m+  replicas: 3\033[0m") != std::string::npos);
  std::string stripped;
  for (std::size_t i = 0; i < coloured.size(); ++i) {
    if (coloured[i] == '\033') {
      i = coloured.find('m', i);
      continue;
    }
    stripped += coloured[i];
  }
  CHECK(stripped == plain);
}
