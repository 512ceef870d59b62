// -o yaml prints the document -o json prints, so a script may read either.
#include <catch2/catch.hpp>

#include "model/yaml_document.hpp"
#include "structured_output.hpp"

using opctl::model::Json;

TEST_CASE("-o yaml reads back as the document -o json prints", "[structured_output]") {
  Json report = {{"apiVersion", "opctl.io/v1alpha1"},
                 {"kind", "RunReport"},
                 {"dryRun", false},
                 {"durationSeconds", 1.5},
                 {"message", "line one\nline two: with a colon"},
                 {"objects", Json::array({{{"name", "web"}, {"wave", -1}}, {{"name", "007"}, {"wave", 0}}})},
                 {"summary", Json::object()},
                 {"pin", nullptr}};
  std::string json = opctl::cli::render_structured(report, "json");
  CHECK(json == report.dump(2) + "\n");
  std::string yaml = opctl::cli::render_structured(report, "yaml");
  REQUIRE(yaml.back() == '\n');
  auto documents = opctl::model::parse_yaml_documents(yaml, "report.yaml");
  REQUIRE(documents.size() == 1);
  CHECK(documents.front().value == report);
}

TEST_CASE("multi-line text reads back exactly, whatever its ends", "[structured_output]") {
  for (std::string text : {"a\nb\n", "a\nb", "a\nb\n\n", " indented\nb\n", "\nleading\n", "tab\tand\nline\n",
                           "trailing space \nx\n"}) {
    Json document = {{"data", {{"file", text}}}};
    std::string yaml = opctl::model::to_yaml(document);
    auto read = opctl::model::parse_yaml_documents(yaml, "t.yaml");
    REQUIRE(read.size() == 1);
    CHECK(read.front().value == document);
  }
  // A file with one final newline stays a readable literal block.
  CHECK(opctl::model::to_yaml(Json{{"file", "a\nb\n"}}).rfind("file: |\n  a\n  b\n", 0) == 0);
}
