// Golden-file tests of the diff --base renderers: two revisions compared by
// diff::compare_revisions (an object added, one removed, one changed, a
// Secret changed, one unchanged), with and without the cluster part. Rewrite
// the files with OPCTL_UPDATE_GOLDEN=1 opctl_tests "[golden]" and review them.
#include <catch2/catch.hpp>

#include "diff/revision_diff.hpp"
#include "revision_diff_render.hpp"
#include "support/golden.hpp"

using namespace opctl;
using model::Json;
using model::Object;
using opctl::testing::check_golden;

namespace {

Object config_map(const std::string& name, const std::string& value, const std::string& file) {
  return Object({{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", {{"name", name}, {"namespace", "shop"}}},
                 {"data", {{"v", value}}}},
                {file, 1});
}

Object secret(const std::string& password) {
  return Object({{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", "db"}, {"namespace", "shop"}}},
                 {"stringData", {{"password", password}}}},
                {"repo@bbbbbbb:prod/secret.yaml", 1});
}

cli::RevisionDiffReport report() {
  std::vector<Object> base = {config_map("edited", "1", "repo@aaaaaaa:prod/edited.yaml"),
                              config_map("gone", "1", "repo@aaaaaaa:prod/gone.yaml"),
                              config_map("kept", "1", "repo@aaaaaaa:prod/kept.yaml"), secret("old")};
  std::vector<Object> head = {
      config_map("edited", "2", "repo@bbbbbbb:prod/edited.yaml"),
      config_map("kept", "1", "repo@bbbbbbb:prod/kept.yaml"),
      config_map("new", "1", "repo@bbbbbbb:charts/web/templates/cm.yaml (helm release web)"), secret("new")};
  source::SourceRevision from{
      "https://git.example/ops.git", "main", std::string(40, 'a'), "", "", "", "prod", {}};
  source::SourceRevision to{
      "https://git.example/ops.git", "pr-42", std::string(40, 'b'), "", "", "", "prod", {}};
  return {from, to, diff::compare_revisions(base, head, {}), std::nullopt};
}

}  // namespace

TEST_CASE("diff --base renders the revisions without a cluster", "[golden][revision_diff]") {
  // Given a change that adds, removes and edits objects, we should render it as the golden files show.
  auto revisions = report();
  cli::TextOptions text{cli::Palette{false}, false};
  check_golden("revision.txt", cli::render_revision_text(revisions, text));
  check_golden("revision.md", cli::render_revision_markdown(revisions));
  check_golden("revision.json", cli::render_revision_json(revisions).dump(2) + "\n");
}

TEST_CASE("diff --base with a cluster appends the live diff", "[golden][revision_diff]") {
  // Given a live part, we should render it after the revisions, as plain diff renders it.
  auto revisions = report();
  revisions.live = std::vector<diff::ObjectDiff>{revisions.changes[0]};  // what the cluster still lacks
  revisions.live->front().change = diff::Change::changed;
  auto json = cli::render_revision_json(revisions);
  CHECK(json["live"]["kind"] == "DiffReport");
  CHECK(json["live"]["summary"]["changed"] == 1);
  cli::TextOptions text{cli::Palette{false}, false};
  auto rendered = cli::render_revision_text(revisions, text);
  CHECK_THAT(rendered,
             Catch::Contains("Against the cluster (what a pass with the head would change):\n~ v1 ConfigMap "
                             "shop/edited"));
  CHECK_THAT(cli::render_revision_markdown(revisions),
             Catch::Contains("#### Against the cluster\n\nSource: "));
}
