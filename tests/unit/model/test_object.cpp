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
