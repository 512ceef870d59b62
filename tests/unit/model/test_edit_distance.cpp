#include <catch2/catch.hpp>

#include "model/edit_distance.hpp"

using opctl::model::edit_distance;
using opctl::model::LetterCase;

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[model]") {
  CHECK(edit_distance("prune", "prune") == 0);
  CHECK(edit_distance("--prnue", "--prune") == 2);  // a swap is two substitutions
  CHECK(edit_distance("reconcle", "reconcile") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("letter case counts unless ignored", "[model]") {
  CHECK(edit_distance("Replicas", "replicas") == 1);
  CHECK(edit_distance("Replicas", "replicas", LetterCase::ignored) == 0);
}
