// A pass refuses to prune when its source yields nothing for a set that has
// members, or when it would delete more than --max-prune of them; the refusal
// names the set, its member count, what would go and the flag that allows it.
#include <catch2/catch.hpp>

#include "apply/prune_limits.hpp"
#include "model/error.hpp"

using opctl::InvalidInputError;
using opctl::apply::check_prune_volume;
using opctl::apply::PruneLimits;
using opctl::apply::PruneVolume;
using opctl::model::parse_prune_limit;

namespace {

std::vector<std::string> config_maps(int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i)
    names.push_back("ConfigMap shop/c" + std::to_string(i));
  return names;
}

std::string refusal(const PruneVolume& volume, const PruneLimits& limits) {
  try {
    check_prune_volume(volume, limits);
  } catch (const InvalidInputError& error) {
    return error.problems().front().field + ": " + error.problems().front().message;
  }
  return "";
}

}  // namespace

TEST_CASE("an emptied source prunes nothing unless --allow-empty", "[prune_limits]") {
  PruneVolume volume{"default/opctl-shop", 0, 20, config_maps(20)};
  auto why = refusal(volume, {});
  CHECK_THAT(why, Catch::StartsWith("--prune: refusing to prune the set default/opctl-shop") &&
                      Catch::Contains("yields no objects, and the set has 20 members") &&
                      Catch::Contains("20 objects: ConfigMap shop/c0") && Catch::Contains(", ...") &&
                      Catch::Contains("--allow-empty"));
  // Told the set is meant to be empty, the share no longer applies either.
  CHECK(refusal(volume, {true, {}}).empty());
  // An empty source with nothing to delete is not refused.
  CHECK(refusal({"default/opctl-shop", 0, 0, {}}, {}).empty());
}

TEST_CASE("a pass deleting more than --max-prune of the members prunes nothing", "[prune_limits]") {
  // 20 members, 11 to go: more than 50% (10).
  auto why = refusal({"default/opctl-shop", 9, 20, config_maps(11)}, {});
  CHECK_THAT(why,
             Catch::Contains("would delete 11 of its 20 members, more than --max-prune 50% allows (10)") &&
                 Catch::Contains("pass --max-prune 11"));
  CHECK(refusal({"default/opctl-shop", 10, 20, config_maps(10)}, {}).empty());
  // A share never refuses 5 or fewer: renaming the 3 objects of a small set is routine.
  CHECK(refusal({"default/opctl-shop", 3, 3, config_maps(3)}, {}).empty());
  CHECK_FALSE(refusal({"default/opctl-shop", 1, 6, config_maps(6)}, {}).empty());
  // A count is exact, and raising it allows the deletion.
  PruneLimits two{false, *parse_prune_limit("2")};
  CHECK_THAT(refusal({"default/opctl-shop", 5, 8, config_maps(3)}, two),
             Catch::Contains("--max-prune 2 allows (2)"));
  CHECK(refusal({"default/opctl-shop", 5, 8, config_maps(3)}, {false, *parse_prune_limit("3")}).empty());
  CHECK(refusal({"default/opctl-shop", 0, 20, config_maps(20)}, {true, *parse_prune_limit("0")}).empty());
}

TEST_CASE("--max-prune reads a count or a percentage", "[prune_limits]") {
  CHECK(parse_prune_limit("10")->to_string() == "10");
  CHECK(parse_prune_limit("25%")->to_string() == "25%");
  CHECK(parse_prune_limit("0")->allowed(100) == 0);
  CHECK(parse_prune_limit("25%")->allowed(100) == 25);
  CHECK(parse_prune_limit("25%")->allowed(10) == 5);  // the floor
  CHECK(parse_prune_limit("100%")->allowed(7) == 7);
  for (const char* bad : {"", "%", "-1", "101%", "ten", "5 %", "1.5"})
    CHECK_FALSE(parse_prune_limit(bad).has_value());
}
