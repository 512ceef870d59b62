// The charts of a tree: those the walk finds and those helm: entries name,
// rendered through a stand-in for helm that records what it was asked.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "model/error.hpp"
#include "source/helm_charts.hpp"
#include "source/manifest_tree.hpp"
#include "support/memory_tree.hpp"

using namespace opctl::source;

namespace {

using opctl::testing::MemoryTree;

const std::map<std::string, std::string> k_repository = {
    {"charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n"},
    {"charts/web/templates/deployment.yaml", "{{ .Values.broken"},  // never read as a manifest
    {"envs/prod/app.yaml", "kind: ConfigMap\n"},
    {"envs/prod/values.yaml", "replicas: 3\n"},
    {"envs/prod/local/Chart.yaml", "apiVersion: v2\nname: local-chart\nversion: 1.0.0\n"},
    {"envs/prod/zz.yaml", "kind: Secret\n"},
    {"values/shared.yaml", "image: web:1\n"},
};

struct Recorder {
  std::vector<ChartRendering> calls;
  ChartRenderer renderer() {
    return [this](const ChartRendering& rendering) {
      calls.push_back(rendering);
      return "---\n# Source: x/templates/cm.yaml\nkind: ConfigMap\nmetadata:\n  name: " +
             rendering.release_name + "\n";
    };
  }
};

std::vector<ManifestFile> collect(MemoryTree& tree, Recorder& recorder, HelmSettings settings) {
  CollectOptions options{load_ignore_rules(tree, "envs/prod"),
                         {},
                         {},
                         recorder.renderer(),
                         [settings](const std::vector<ManifestFile>&) { return settings; }};
  return collect_manifests(tree, "envs/prod", options);
}

std::vector<std::string> paths_of(const std::vector<ManifestFile>& files) {
  std::vector<std::string> paths;
  for (const auto& file : files)
    paths.push_back(file.path);
  return paths;
}

}  // namespace

TEST_CASE("a chart found by the walk is rendered in place with its own name and values", "[helm]") {
  // Given a directory with a Chart.yaml below the path, we should render it (not read its templates) where it
  // lies.
  MemoryTree tree(k_repository);
  Recorder recorder;
  auto files = collect(tree, recorder, {{}, "shop"});
  CHECK(paths_of(files) ==
        std::vector<std::string>{"repo@abc:envs/prod/app.yaml",
                                 "repo@abc:envs/prod/local/templates/cm.yaml (helm release local-chart)",
                                 "repo@abc:envs/prod/values.yaml", "repo@abc:envs/prod/zz.yaml"});
  REQUIRE(recorder.calls.size() == 1);
  CHECK(recorder.calls[0].chart_directory == "/disk/envs/prod/local");
  CHECK(recorder.calls[0].release_name == "local-chart");
  CHECK(recorder.calls[0].namespace_name == "shop");
  CHECK(recorder.calls[0].values_files.empty());
  CHECK(files[1].rendered);
}

TEST_CASE("a helm entry renders a chart outside the path with values from anywhere in the repository",
          "[helm]") {
  // Given an entry naming ../../charts/web and values from two places, we should hand helm those files on
  // disk.
  MemoryTree tree(k_repository);
  Recorder recorder;
  HelmRelease entry{"../../charts/web", "web-prod",  "shop", {"../../values/shared.yaml", "values.yaml"},
                    "1.31.0",           {"x.io/v1"}, false,  "opctl.yaml:5"};
  auto files = collect(tree, recorder, {{entry}, ""});
  REQUIRE(recorder.calls.size() == 2);  // the walk's chart, then the entry's
  const auto& call = recorder.calls[1];
  CHECK(call.chart_directory == "/disk/charts/web");
  CHECK(call.display == "repo@abc:charts/web");
  CHECK(call.release_name == "web-prod");
  CHECK(call.namespace_name == "shop");
  CHECK(call.values_files ==
        std::vector<std::filesystem::path>{"/disk/values/shared.yaml", "/disk/envs/prod/values.yaml"});
  CHECK(call.kube_version == "1.31.0");
  CHECK(files.back().path == "repo@abc:charts/web/templates/cm.yaml (helm release web-prod)");
  // envs/prod/values.yaml is helm's input now, not a manifest.
  auto paths = paths_of(files);
  CHECK(std::find(paths.begin(), paths.end(), "repo@abc:envs/prod/values.yaml") == paths.end());
  CHECK(std::find(paths.begin(), paths.end(), "repo@abc:envs/prod/zz.yaml") != paths.end());
}

TEST_CASE("entries naming a chart the walk found replace its default rendering", "[helm]") {
  // Given two releases of the chart below the path, we should render two releases and not the default one.
  MemoryTree tree(k_repository);
  Recorder recorder;
  HelmRelease first{"local", "one", "", {}, "", {}, false, "opctl.yaml:5"};
  HelmRelease second{"./local/", "two", "", {}, "", {}, false, "opctl.yaml:7"};
  auto files = collect(tree, recorder, {{first, second}, ""});
  REQUIRE(recorder.calls.size() == 2);
  CHECK(recorder.calls[0].release_name == "one");
  CHECK(recorder.calls[1].release_name == "two");
  CHECK(paths_of(files)[1] == "repo@abc:envs/prod/local/templates/cm.yaml (helm release one)");
  CHECK(paths_of(files)[2] == "repo@abc:envs/prod/local/templates/cm.yaml (helm release two)");
}

TEST_CASE("a helm entry must name a chart and files inside the repository", "[helm]") {
  // Given entries that point at nothing or out of the repository, we should name the entry and the field.
  MemoryTree tree(k_repository);
  Recorder recorder;
  auto fails_with = [&](HelmRelease entry, const std::string& message) {
    entry.declared_at = "opctl.yaml:9";
    CHECK_THROWS_WITH(collect(tree, recorder, {{entry}, ""}), Catch::Contains(message));
  };
  fails_with({"../../values", "", "", {}, "", {}, false, ""},
             "opctl.yaml:9: chart: repo@abc:values is not a Helm chart");
  fails_with({"../../../elsewhere", "", "", {}, "", {}, false, ""}, "leaves the repository");
  fails_with({"local", "", "", {"missing.yaml"}, "", {}, false, ""},
             "valuesFiles: repo@abc:envs/prod/missing.yaml is not a file");
  CHECK(recorder.calls.empty());  // nothing rendered before every entry checked
}

TEST_CASE("entry paths resolve from the source's path", "[helm]") {
  // Given relative paths, we should get tree paths, and refuse those that climb out.
  CHECK(resolve_tree_path("envs/prod", "../../charts/web/", "f", "chart") == "charts/web");
  CHECK(resolve_tree_path("", "charts/./web", "f", "chart") == "charts/web");
  CHECK(resolve_tree_path("envs", "..", "f", "chart") == "");
  CHECK_THROWS_AS(resolve_tree_path("envs", "../..", "f", "chart"), opctl::InvalidInputError);
  CHECK_THROWS_AS(resolve_tree_path("", "/abs", "f", "chart"), opctl::InvalidInputError);
}
