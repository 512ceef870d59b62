// OpenAPI documents as validation reads them.
#include <catch2/catch.hpp>

#include "validate/openapi_document.hpp"

using opctl::model::Json;
using opctl::validate::parse_without_descriptions;

TEST_CASE("a document is parsed without descriptions, but a property named description stays", "[openapi]") {
  Json parsed = parse_without_descriptions(R"({
    "description": "the document",
    "components": {"schemas": {"Gadget": {
      "description": "a gadget",
      "type": "object",
      "required": ["description"],
      "properties": {
        "description": {"type": "string", "description": "what the gadget is for"},
        "spec": {"description": {"nested": "dropped whole"}, "type": "object"}
      },
      "allOf": [{"description": "in a list", "type": "object"}]
    }}}})");
  Json expected = Json::parse(R"({
    "components": {"schemas": {"Gadget": {
      "type": "object",
      "required": ["description"],
      "properties": {"description": {"type": "string"}, "spec": {"type": "object"}},
      "allOf": [{"type": "object"}]
    }}}})");
  CHECK(parsed == expected);
  CHECK(parse_without_descriptions("{\"a\": ").is_discarded());
}
