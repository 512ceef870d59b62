// helm template's output taken apart: templates named, hooks found.
#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "source/helm_output.hpp"

using namespace opctl::source;

namespace {

const char* const k_output = R"(---
# Source: web/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
---
# Source: web/templates/migrate.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
)";

}  // namespace

TEST_CASE("helm's output is split at its Source comments", "[helm]") {
  // Given three rendered templates, we should get three documents named after their templates.
  auto templates = split_helm_output(k_output);
  REQUIRE(templates.size() == 3);
  CHECK(templates[0].source == "web/templates/service.yaml");
  CHECK(templates[0].text == "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n");
  CHECK(templates[1].source == "web/templates/deployment.yaml");
  CHECK(templates[2].source == "web/templates/migrate.yaml");
}

TEST_CASE("a rendered template is named by its path below the chart's directory", "[helm]") {
  // Given a chart whose name differs from its directory, we should name the file in the repository.
  CHECK(template_display("charts/web-chart", "web/templates/a.yaml", "web") ==
        "charts/web-chart/templates/a.yaml (helm release web)");
  CHECK(template_display("repo@abc:charts/web", "web/charts/db/templates/s.yaml", "prod") ==
        "repo@abc:charts/web/charts/db/templates/s.yaml (helm release prod)");
}

TEST_CASE("a Helm hook is found with its line", "[helm]") {
  // Given a Job annotated as a hook, we should report the annotation's value and line.
  auto hook = find_helm_hook(
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: m\n  annotations:\n"
      "    helm.sh/hook: post-install\n",
      "t.yaml");
  REQUIRE(hook);
  CHECK(hook->hook == "post-install");
  CHECK(hook->line == 6);
  CHECK_FALSE(find_helm_hook("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", "c.yaml"));
}

TEST_CASE("hooks are refused by default, every one at once", "[helm]") {
  // Given a release with a hook, we should refuse it naming the template, not apply it silently.
  try {
    manifests_from_helm_output(k_output, {"charts/web", "web", false, {}});
    FAIL("no error");
  } catch (const opctl::InvalidInputError& error) {
    REQUIRE(error.problems().size() == 1);
    CHECK(error.problems()[0].file == "charts/web/templates/migrate.yaml (helm release web)");
    CHECK(error.problems()[0].line == 6);
    CHECK_THAT(error.problems()[0].message,
               Catch::Contains("pre-install,pre-upgrade") && Catch::Contains("skipHooks"));
  }
}

TEST_CASE("with skipHooks, hooks are left out with a warning", "[helm]") {
  // Given skipHooks, we should keep the release's objects, drop the hook and say so.
  std::vector<std::string> warnings;
  auto files = manifests_from_helm_output(
      k_output,
      {"charts/web", "web", true, [&](const std::string& message) { warnings.push_back(message); }});
  REQUIRE(files.size() == 2);
  CHECK(files[0].path == "charts/web/templates/service.yaml (helm release web)");
  CHECK(files[0].rendered);
  CHECK(files[1].path == "charts/web/templates/deployment.yaml (helm release web)");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0],
             Catch::Contains("migrate.yaml (helm release web):6") && Catch::Contains("left out"));
}
