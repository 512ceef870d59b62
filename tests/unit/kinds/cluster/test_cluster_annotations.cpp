// The annotations that stop a Cluster on purpose, as text: what each value
// means, and a clear error for one that cannot be read.
#include <catch2/catch.hpp>

#include "kinds/cluster/cluster_annotations.hpp"

using namespace opctl::kinds::cluster;

TEST_CASE("opctl.io/hibernation is on, off or absent; anything else is an error naming it",
          "[cluster][annotations]") {
  CHECK(parse_hibernation("on").value);
  CHECK(parse_hibernation("on").error.empty());
  CHECK_FALSE(parse_hibernation("off").value);
  CHECK_FALSE(parse_hibernation(std::nullopt).value);
  CHECK(parse_hibernation(std::nullopt).error.empty());
  auto wrong = parse_hibernation("true");
  CHECK_FALSE(wrong.value);
  CHECK(wrong.error == "opctl.io/hibernation: \"true\" must be \"on\" or \"off\"");
  CHECK_FALSE(parse_hibernation("ON").error.empty());
}

TEST_CASE("opctl.io/fenced-instances is a JSON list of names, [\"*\"] for all", "[cluster][annotations]") {
  // Given CloudNativePG's cnpg.io/fencedInstances format, we should fence exactly the names listed.
  auto two = parse_fenced_instances(R"(["db-1","db-3"])");
  REQUIRE(two.error.empty());
  CHECK(two.value.fences("db-1"));
  CHECK(two.value.fences("db-3"));
  CHECK_FALSE(two.value.fences("db-2"));
  CHECK_FALSE(two.value.fences(""));
  CHECK(two.value.any());

  auto all = parse_fenced_instances(R"(["*"])");
  REQUIRE(all.error.empty());
  CHECK(all.value.all);
  CHECK(all.value.fences("db-7"));

  for (const char* none : {"", "[]"}) {
    auto parsed = parse_fenced_instances(std::string(none));
    CHECK(parsed.error.empty());
    CHECK_FALSE(parsed.value.any());
  }
  CHECK_FALSE(parse_fenced_instances(std::nullopt).value.any());
}

TEST_CASE("a fenced-instances value that is not a list of names is an error that shows it",
          "[cluster][annotations]") {
  for (const char* text : {"db-1", R"("db-1")", R"({"db-1":true})", "[1]", R"([""])", R"(["db-1",)"}) {
    auto parsed = parse_fenced_instances(std::string(text));
    INFO(text);
    CHECK_FALSE(parsed.value.any());
    CHECK_THAT(parsed.error, Catch::StartsWith("opctl.io/fenced-instances: "));
    CHECK_THAT(parsed.error, Catch::Contains(std::string("got ") + text));
  }
  CHECK_THAT(parse_fenced_instances("db-1").error, Catch::Contains("not JSON"));
  CHECK_THAT(parse_fenced_instances(R"("db-1")").error, Catch::Contains("not a list"));
}
