#include <catch2/catch.hpp>

#include "model/object.hpp"

using opctl::model::Json;
using opctl::model::Object;

TEST_CASE("line_of finds a field's line, else its nearest enclosing field's, else the document's",
          "[object]") {
  Object object(Json{{"metadata", {{"name", "web"}}}, {"spec", {{"ports", {{{"port", 80}}}}}}},
                {"web.yaml", 3},
                {{"/metadata", 4},
                 {"/metadata/name", 5},
                 {"/spec", 6},
                 {"/spec/ports/0", 8},
                 {"/spec/ports/0/port", 9},
                 {"/spec/ports/01", 12},
                 {"/spec/p", 13}});
  CHECK(object.line_of("/metadata/name") == 5);
  CHECK(object.line_of("/spec/ports/0/port") == 9);
  CHECK(object.line_of("/spec/ports/0/name") == 8);  // not written: its element's line
  CHECK(object.line_of("/spec/ports/1") == 6);       // no such element: the nearest written parent
  CHECK(object.line_of("/status") == 3);             // nothing on the way: the document's line
  Object copy = object;
  CHECK(copy.line_of("/spec/ports/01") == 12);
}

TEST_CASE("forget_field_lines frees the tables: line_of then answers the document's line", "[object]") {
  Object object(Json{{"metadata", {{"name", "web"}}}, {"spec", {{"replicas", 2}}}}, {"web.yaml", 3},
                {{"/metadata", 4}, {"/metadata/name", 5}, {"/spec", 6}, {"/spec/replicas", 7}});
  REQUIRE(object.line_of("/spec/replicas") == 7);
  std::size_t before = object.field_line_bytes();
  object.forget_field_lines();
  CHECK(object.line_of("/spec/replicas") == 3);
  CHECK(object.location().file == "web.yaml");
  CHECK(object.body()["spec"]["replicas"] == 2);
  // Freed, not emptied in place: an empty string keeps only its inline buffer.
  CHECK(before > 60);
  CHECK(object.field_line_bytes() < 16);
}
