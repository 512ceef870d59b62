#include <fmt/format.h>

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
  // Freed, not emptied in place: 12 bytes a field before, nothing after.
  CHECK(before == 4 * 12);
  CHECK(object.field_line_bytes() == 0);
}

namespace {

Object web_deployment() {
  Json body = {{"apiVersion", "apps/v1"},
               {"kind", "Deployment"},
               {"metadata",
                {{"name", "web"},
                 {"namespace", "shop"},
                 {"labels", {{"app", "web"}}},
                 {"annotations", {{"opctl.io/wave", "2"}}}}},
               {"spec", {{"replicas", 3}, {"ratio", 0.5}, {"paused", false}, {"selector", nullptr}}}};
  return Object(std::move(body), {"web.yaml", 1}, {{"/spec/replicas", 9}});
}

}  // namespace

TEST_CASE("a packed object keeps its body, identity and field lines, and decodes to the same tree",
          "[object]") {
  Object object = web_deployment();
  const Json original = object.body();
  object.pack();
  REQUIRE(object.is_packed());
  CHECK(object.packed_bytes() > 0);
  CHECK(object.packed_bytes() < original.dump().size());
  // Identity, labels and annotations are answered without unpacking.
  CHECK(object.key().to_string() == "apps/Deployment shop/web");
  CHECK(object.api_version() == "apps/v1");
  CHECK(object.label("app") == "web");
  CHECK(object.annotation("opctl.io/wave") == "2");
  CHECK(object.label("missing").empty());
  CHECK(object.line_of("/spec/replicas") == 9);
  CHECK(object.is_packed());
  // A copy decodes without unpacking; reading the body unpacks it.
  CHECK(object.body_copy() == original);
  CHECK(object.is_packed());
  CHECK(object.body() == original);
  CHECK_FALSE(object.is_packed());
  // Packing again reuses the packed form: nothing changed.
  object.pack();
  CHECK(object.body() == original);
  CHECK(object.body()["spec"]["ratio"].is_number_float());
  CHECK(object.body()["spec"]["replicas"].is_number_integer());
}

TEST_CASE("changing a packed object drops its packed form, and packing again encodes the change",
          "[object]") {
  Object object = web_deployment();
  object.pack();
  object.set_namespace("store");
  object.set_label("tier", "front");
  CHECK_FALSE(object.is_packed());
  CHECK(object.namespace_name() == "store");
  object.pack();
  CHECK(object.namespace_name() == "store");
  CHECK(object.key().namespace_name == "store");
  CHECK(object.label("tier") == "front");
  object.mutable_body()["metadata"]["name"] = "api";
  object.pack();
  CHECK(object.name() == "api");
  Object copy = object;
  CHECK(copy.is_packed());
  CHECK(copy.body()["metadata"]["name"] == "api");
}

TEST_CASE("PackedAfter packs again what was packed, and leaves an unpacked object as it was", "[object]") {
  Object packed = web_deployment();
  packed.pack();
  {
    opctl::model::PackedAfter scope(packed);
    packed.set_annotation("opctl.io/source", "git@abc");
    CHECK_FALSE(packed.is_packed());
  }
  CHECK(packed.is_packed());
  CHECK(packed.annotation("opctl.io/source") == "git@abc");

  Object tree = web_deployment();
  {
    opctl::model::PackedAfter scope(tree);
    CHECK(tree.body()["spec"]["replicas"] == 3);
  }
  CHECK_FALSE(tree.is_packed());
}

TEST_CASE("line_of finds fields by their pointer's hash, never a field that was not written", "[object]") {
  std::map<std::string, int> lines;
  for (int i = 0; i < 500; ++i)
    lines[fmt::format("/data/key-{}", i)] = 10 + i;
  lines["/data"] = 9;
  Object object(Json{{"data", Json::object()}}, {"big.yaml", 2}, lines);
  for (int i = 0; i < 500; ++i)
    REQUIRE(object.line_of(fmt::format("/data/key-{}", i)) == 10 + i);
  CHECK(object.line_of("/data/key-500") == 9);  // not written: the map's line
  CHECK(object.line_of("/spec") == 2);
}

TEST_CASE("a packed object's labels are read from the packed form, whatever surrounds them", "[object]") {
  Json body = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"data", {{"labels", {{"app", "not-this"}}}}},
               {"items", {{{"metadata", {{"labels", {{"app", "nor-this"}}}}}}}},
               {"metadata",
                {{"name", "settings"},
                 {"annotations", {{"list", "x"}, {"number", "1"}}},
                 {"labels", {{"app", "web"}, {"count", 3}, {"nested", {{"app", "deep"}}}, {"empty", ""}}}}}};
  Object object(body);
  object.pack();
  CHECK(object.label("app") == "web");
  CHECK(object.label("count").empty());   // not a string
  CHECK(object.label("nested").empty());  // an object
  CHECK(object.label("empty").empty());
  CHECK(object.label("absent").empty());
  CHECK(object.annotation("number") == "1");
  // Setting what is already there keeps the object packed; anything else unpacks it.
  object.set_label("app", "web");
  CHECK(object.is_packed());
  object.set_label("empty", "");
  CHECK(object.is_packed());
  object.set_label("count", "3");
  CHECK_FALSE(object.is_packed());
  CHECK(object.body()["metadata"]["labels"]["count"] == "3");

  Object not_a_map(Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"labels", {"a", "b"}}}}});
  not_a_map.pack();
  CHECK(not_a_map.label("a").empty());
  Object list(Json::array({1, 2}));
  list.pack();
  CHECK(list.label("a").empty());
  CHECK(list.kind().empty());
}
