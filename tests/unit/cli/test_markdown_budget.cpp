// Markdown reports stay below GitHub's 65,536-character comment limit: what
// does not fit is counted in a note, and every row or diff kept is whole.
#include <catch2/catch.hpp>

#include "diff/object_diff.hpp"
#include "diff_render.hpp"
#include "markdown_budget.hpp"
#include "pass_render.hpp"

using namespace opctl;
using model::Json;

namespace {

// A ConfigMap added with a value of `size` bytes: its diff is about that long.
diff::ObjectDiff added_config_map(int index, std::size_t size) {
  std::string name = "settings-" + std::to_string(index);
  Json body = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", name}, {"namespace", "shop"}}},
               {"data", {{"config", std::string(size, 'x')}}}};
  return diff::compare_objects({"", "ConfigMap", "shop", name}, "v1", {"cm.yaml", index}, Json(), body, {});
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t found = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++found;
  return found;
}

}  // namespace

TEST_CASE("a small diff report is whole and has no note", "[markdown_budget]") {
  std::vector<diff::ObjectDiff> diffs = {added_config_map(1, 100), added_config_map(2, 100)};
  std::string report = cli::render_diff_markdown(diffs, {});
  CHECK(count(report, "<details>") == 2);
  CHECK(report.find("not shown here") == std::string::npos);
}

TEST_CASE("a large diff report keeps whole diffs below the limit and counts the rest", "[markdown_budget]") {
  // 200 objects of ~2 KB of diff each: about 400 KB in all.
  std::vector<diff::ObjectDiff> diffs;
  for (int i = 0; i < 200; ++i)
    diffs.push_back(added_config_map(i, 2000));
  std::string report = cli::render_diff_markdown(diffs, {});
  REQUIRE(report.size() <= cli::k_markdown_limit);
  CHECK(count(report, "| + | `v1 ConfigMap shop/settings-") == 200);  // the table names every object
  std::size_t shown = count(report, "<details>");
  CHECK(shown > 10);
  CHECK(count(report, "</details>") == shown);  // no section is cut in half
  CHECK_THAT(report,
             Catch::Contains("_" + std::to_string(200 - shown) +
                             " more objects' diffs are not shown here: the report stays below GitHub's "
                             "65,536-character comment limit. `opctl diff -o json` (or `--report FILE`) "
                             "has every object._"));
}

TEST_CASE("a table too long for the limit is cut at a whole row and says how many are left",
          "[markdown_budget]") {
  std::vector<diff::ObjectDiff> diffs;
  for (int i = 0; i < 2000; ++i)
    diffs.push_back(added_config_map(i, 10));
  std::string report = cli::render_diff_markdown(diffs, {});
  REQUIRE(report.size() <= cli::k_markdown_limit);
  std::size_t rows = count(report, "| + | `v1 ConfigMap shop/settings-");
  CHECK(rows < 2000);
  CHECK_THAT(report, Catch::Contains("| | _" + std::to_string(2000 - rows) + " more_ | | |\n"));
  CHECK_THAT(report, Catch::Contains("_2000 more objects' diffs are not shown here"));
}

TEST_CASE("a run report with many changed objects stays below the limit", "[markdown_budget]") {
  apply::PassReport report;
  for (int i = 0; i < 3000; ++i) {
    apply::ObjectOutcome outcome;
    outcome.key = {"", "ConfigMap", "shop", "settings-" + std::to_string(i)};
    outcome.action = apply::Action::created;
    report.outcomes.push_back(outcome);
  }
  std::string markdown = cli::render_pass_markdown(report, {});
  REQUIRE(markdown.size() <= cli::k_markdown_limit);
  std::size_t rows = count(markdown, "| `ConfigMap shop/settings-");
  CHECK(rows > 100);
  CHECK_THAT(markdown,
             Catch::Contains("_" + std::to_string(3000 - rows) + " more objects are not shown here"));
}
