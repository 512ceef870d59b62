// A set records the source it was written from; a pruning pass from another
// source is refused (naming both and what would go) unless it takes over.
#include <catch2/catch.hpp>

#include "apply/set_source.hpp"
#include "model/error.hpp"

using opctl::apply::decide_set_source;
using opctl::apply::SetSourceCheck;
using opctl::model::Json;

namespace {

Json parent_from(const std::string& source) {
  return {{"metadata", {{"annotations", {{opctl::apply::k_set_source_annotation, source}}}}}};
}

SetSourceCheck check(const std::string& source, bool prune, bool take_over = false) {
  return {"default/opctl-team", source, prune, take_over, [] {
            return std::vector<std::string>{"Namespace team-a", "ConfigMap team-a/settings"};
          }};
}

}  // namespace

TEST_CASE("a pass records its source on a new set and on its own set", "[set_source]") {
  CHECK(decide_set_source(std::nullopt, check("/work/team-a", true)).record == "/work/team-a");
  auto same = decide_set_source(parent_from("/work/team-a"), check("/work/team-a", true));
  CHECK(same.record == "/work/team-a");
  CHECK(same.warning.empty());
  // A set written before sources were recorded is adopted.
  CHECK(decide_set_source(Json{{"metadata", Json::object()}}, check("/work/team-b", true)).record ==
        "/work/team-b");
}

TEST_CASE("pruning a set written from another source is refused, naming both and what would go",
          "[set_source]") {
  // Given team A's set, we should refuse team B's pruning pass before anything changes.
  try {
    decide_set_source(parent_from("/work/team-a"), check("/work/team-b", true));
    FAIL("not refused");
  } catch (const opctl::InvalidInputError& error) {
    std::string text = error.what();
    CHECK_THAT(text, Catch::Contains("/work/team-a") && Catch::Contains("/work/team-b") &&
                         Catch::Contains("2 objects: Namespace team-a, ConfigMap team-a/settings") &&
                         Catch::Contains("--take-over"));
  }
}

TEST_CASE("--take-over makes this run's source the set's", "[set_source]") {
  auto decision = decide_set_source(parent_from("/work/team-a"), check("/work/team-b", true, true));
  CHECK(decision.record == "/work/team-b");
  CHECK(decision.warning.empty());
}

TEST_CASE("a pass that does not prune keeps the recorded source and warns", "[set_source]") {
  auto decision = decide_set_source(parent_from("/work/team-a"), check("/work/team-b", false));
  CHECK(decision.record == "/work/team-a");
  CHECK_THAT(decision.warning, Catch::Contains("last written from /work/team-a"));
}
