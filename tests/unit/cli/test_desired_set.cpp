// What the desired set keeps of its objects once they are checked.
#include <catch2/catch.hpp>

#include "desired_set.hpp"

using opctl::model::Json;
using opctl::model::Object;

TEST_CASE("forgetting field lines keeps each object's body and document location", "[desired_set]") {
  Json body = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", "web"}, {"namespace", "shop"}}},
               {"data", {{"key", "1"}}}};
  std::vector<Object> objects = {
      Object(body, {"apps/web.yaml", 3}, {{"/metadata/name", 5}, {"/data/key", 8}})};
  REQUIRE(objects[0].line_of("/data/key") == 8);
  opctl::cli::forget_field_lines(objects);
  REQUIRE(objects.size() == 1);
  CHECK(objects[0].body() == body);
  CHECK(objects[0].location().file == "apps/web.yaml");
  CHECK(objects[0].location().line == 3);
  CHECK(objects[0].key() == opctl::model::ObjectKey{"", "ConfigMap", "shop", "web"});
  CHECK(objects[0].line_of("/data/key") == 3);  // the document's line: the field's is gone
}
