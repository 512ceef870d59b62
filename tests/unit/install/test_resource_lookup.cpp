#include <catch2/catch.hpp>

#include "install/resource_lookup.hpp"
#include "model/error.hpp"

using opctl::install::offline_lookup;
using opctl::install::plural_of;
using opctl::install::scopes_of;
using opctl::model::Json;
using opctl::model::Object;

TEST_CASE("given built-in kinds we should name their resources as the API server does", "[install]") {
  CHECK(plural_of("Deployment") == "deployments");
  CHECK(plural_of("NetworkPolicy") == "networkpolicies");
  CHECK(plural_of("Ingress") == "ingresses");
  CHECK(plural_of("Endpoints") == "endpoints");
  CHECK(plural_of("PriorityClass") == "priorityclasses");
  CHECK(plural_of("Gateway") == "gateways");
  CHECK(plural_of("ComponentStatus") == "componentstatuses");
}

TEST_CASE("given an object without a namespace we should default it only when its kind is namespaced",
          "[install]") {
  std::vector<Object> objects = {
      Object(Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}}),
      Object(Json{
          {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "n"}, {"namespace", "x"}}}})};
  opctl::plan::resolve_scopes(scopes_of(offline_lookup({})), objects, "opctl-system");
  CHECK(objects[0].namespace_name() == "opctl-system");
  CHECK(objects[1].namespace_name().empty());
}

TEST_CASE("given an unknown kind we should say so with its location", "[install]") {
  std::vector<Object> objects = {
      Object(Json{{"apiVersion", "example.com/v1"}, {"kind", "Gadget"}, {"metadata", {{"name", "g"}}}},
             {"gadget.yaml", 3})};
  try {
    opctl::plan::resolve_scopes(scopes_of(offline_lookup({})), objects, "default");
    FAIL("expected InvalidInputError");
  } catch (const opctl::InvalidInputError& error) {
    REQUIRE(error.problems().size() == 1);
    CHECK(error.problems()[0].file == "gadget.yaml");
  }
}
