#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "model/yaml_document.hpp"

using opctl::InvalidInputError;
using opctl::model::parse_yaml_documents;

TEST_CASE("multi-document YAML gives one document per non-empty part, with start lines", "[yaml]") {
  auto documents = parse_yaml_documents("a: 1\n---\n# only a comment\n---\nb: two\n", "f.yaml");
  REQUIRE(documents.size() == 2);
  CHECK(documents[0].value["a"] == 1);
  CHECK(documents[0].line == 1);
  CHECK(documents[1].value["b"] == "two");
  CHECK(documents[1].line == 5);
}

TEST_CASE("plain scalars are typed as kubectl types them, quoted ones stay strings", "[yaml]") {
  auto document = parse_yaml_documents(
                      "int: 42\nneg: -3\nfloat: 1.5\nbool: true\nyes: on\nnull: ~\nstr: hello\n"
                      "quoted: \"42\"\nsingle: 'true'\nversion: 1.27.0\nhex: 0x1F\n",
                      "f.yaml")
                      .front()
                      .value;
  CHECK(document["int"] == 42);
  CHECK(document["neg"] == -3);
  CHECK(document["float"] == 1.5);
  CHECK(document["bool"] == true);
  CHECK(document["yes"] == true);
  CHECK(document["null"].is_null());
  CHECK(document["str"] == "hello");
  CHECK(document["quoted"] == "42");
  CHECK(document["single"] == "true");
  CHECK(document["version"] == "1.27.0");
  CHECK(document["hex"] == 31);
}

TEST_CASE("field lines are recorded as JSON pointers", "[yaml]") {
  auto document =
      parse_yaml_documents("metadata:\n  name: web\nspec:\n  ports:\n    - port: 80\n", "f.yaml").front();
  CHECK(document.field_lines.at("/metadata/name") == 2);
  CHECK(document.field_lines.at("/spec/ports/0/port") == 5);
}

TEST_CASE("a syntax error names the file and line", "[yaml]") {
  try {
    parse_yaml_documents("a: 1\nb: [unclosed\nc: 3\n", "bad.yaml");
    FAIL("expected an error");
  } catch (const InvalidInputError& error) {
    REQUIRE(error.problems().size() == 1);
    CHECK(error.problems()[0].file == "bad.yaml");
    CHECK(error.problems()[0].line >= 2);
    CHECK_THAT(error.what(), Catch::Contains("YAML syntax error"));
  }
}

TEST_CASE("an alias bomb is refused instead of expanded", "[yaml]") {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char previous = 'a';
  for (char name = 'b'; name <= 'j'; ++name) {
    bomb += std::string(1, name) + ": &" + name + " [";
    for (int i = 0; i < 10; ++i)
      bomb += std::string(i ? ", *" : "*") + previous;
    bomb += "]\n";
    previous = name;
  }
  CHECK_THROWS_WITH(parse_yaml_documents(bomb, "bomb.yaml"), Catch::Contains("alias bomb"));
}

TEST_CASE("duplicate mapping keys are an error", "[yaml]") {
  CHECK_THROWS_WITH(parse_yaml_documents("a: 1\na: 2\n", "dup.yaml"), Catch::Contains("duplicate key \"a\""));
}

TEST_CASE("to_yaml round-trips through the parser", "[yaml]") {
  opctl::model::Json value = {{"name", "web"},   {"replicas", 2},     {"flag", "true"},
                              {"empty", ""},     {"list", {1, "a"}},  {"text", "line one\nline two\n"},
                              {"colon", "a: b"}, {"nothing", nullptr}};
  auto back = parse_yaml_documents(opctl::model::to_yaml(value), "x.yaml").front().value;
  CHECK(back == value);
}

TEST_CASE("nesting far too deep gets the depth message with the file, not yaml-cpp's \"bad file\"",
          "[yaml]") {
  // Given 10,000 nested flow sequences (past yaml-cpp's own recursion guard) or 250 (past ours), we should
  // report the same problem, naming the file.
  std::string deep = "a: " + std::string(10000, '[') + std::string(10000, ']') + "\n";
  CHECK_THROWS_WITH(parse_yaml_documents(deep, "deep.yaml"), "deep.yaml:1: nesting deeper than 200 levels");
  std::string deeper_block;
  for (int i = 0; i < 3000; ++i)
    deeper_block += std::string(std::size_t(i), ' ') + "k:\n";
  CHECK_THROWS_WITH(parse_yaml_documents(deeper_block, "block.yaml"),
                    Catch::StartsWith("block.yaml:") && Catch::Contains("nesting deeper than 200 levels"));
  std::string moderate = "a: " + std::string(250, '[') + std::string(250, ']') + "\n";
  CHECK_THROWS_WITH(parse_yaml_documents(moderate, "m.yaml"),
                    Catch::Contains("m.yaml:1: nesting deeper than 200"));
}
