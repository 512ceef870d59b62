#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

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

// What follows pins what the yaml-cpp parser did before parse_yaml_documents moved to libyaml, corner by
// corner; the tests marked "libyaml" pin where the two differ on purpose.

namespace {

opctl::model::YamlDocument only_document(const std::string& text) {
  auto documents = parse_yaml_documents(text, "f.yaml");
  REQUIRE(documents.size() == 1);
  return documents.front();
}

opctl::Problem only_problem(const std::string& text) {
  try {
    parse_yaml_documents(text, "f.yaml");
  } catch (const InvalidInputError& error) {
    REQUIRE(error.problems().size() == 1);
    return error.problems()[0];
  }
  FAIL("expected an error for: " << text);
  return {};
}

}  // namespace

TEST_CASE("an alias is a copy of its anchored node, whose fields keep the anchor's lines", "[yaml]") {
  auto document = only_document("base: &b {x: 1, y: [a, b]}\nuse: *b\nlist: [*b]\ns: &s hello\nt: *s\n");
  opctl::model::Json base = {{"x", 1}, {"y", {"a", "b"}}};
  CHECK(document.value["use"] == base);
  CHECK(document.value["list"] == opctl::model::Json::array({base}));
  CHECK(document.value["t"] == "hello");
  CHECK(document.field_lines.at("/use") == 2);
  CHECK(document.field_lines.at("/use/x") == 1);
  CHECK(document.field_lines.at("/list/0") == 1);
  CHECK(document.field_lines.at("/list/0/y/1") == 1);
  CHECK(document.field_lines.at("/t") == 5);
}

TEST_CASE("an alias names the anchor defined last before it", "[yaml]") {
  auto document = only_document("a: &x 1\nb: *x\nc: &x 2\nd: *x\n");
  CHECK(document.value == opctl::model::Json({{"a", 1}, {"b", 1}, {"c", 2}, {"d", 2}}));
}

TEST_CASE("a sequence item with an anchor starts on the anchor's line", "[yaml]") {
  auto document = only_document("- &x\n  a: 1\n- *x\n");
  CHECK(document.field_lines.at("/0") == 1);
  CHECK(document.field_lines.at("/0/a") == 2);
  CHECK(document.field_lines.at("/1") == 1);
  CHECK(document.field_lines.at("/1/a") == 2);
}

TEST_CASE("an alias to an undefined anchor, or to one of an earlier document, is a syntax error", "[yaml]") {
  auto unknown = only_problem("a: 1\nb: *nope\n");
  CHECK(unknown.line == 2);
  CHECK_THAT(unknown.message, Catch::StartsWith("YAML syntax error: the referenced anchor is not defined"));
  CHECK(only_problem("a: &x 1\n---\nb: *x\n").line == 3);
}

TEST_CASE("a node that contains an alias to itself is refused as too deep, not expanded for ever", "[yaml]") {
  CHECK(only_problem("a: &x [1, *x]\n").message == "nesting deeper than 200 levels");
  // The error names the node that first passes the limit, as a walk of the cyclic node would meet it.
  auto cycle = only_problem("top:\n  x: &x\n    a: 1\n    b:\n      c: *x\n");
  CHECK(cycle.line == 3);
  CHECK(cycle.message == "nesting deeper than 200 levels");
}

TEST_CASE("aliases count towards the node limit as often as they are expanded", "[yaml]") {
  opctl::model::YamlLimits limits;
  limits.max_nodes = 20;
  const std::string text = "a: &a [1, 2, 3, 4]\nb: [*a, *a, *a]\n";
  CHECK(parse_yaml_documents(text, "f.yaml").size() ==
        1);  // 1 + 5 + 1 + 3 * 5 = 22 nodes with the default limit
  CHECK_THROWS_WITH(parse_yaml_documents(text, "f.yaml", limits),
                    "f.yaml:1: document expands to more than 20 nodes (YAML alias bomb?)");
}

namespace {

std::string merge_fixture(const std::string& name) {
  std::ifstream in(std::string(OPCTL_TEST_DATA_DIR) + "/yaml_merge/" + name);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("merge keys << give the object kubectl makes of the same file", "[yaml][yaml_merge]") {
  // Given each manifest of data/yaml_merge, we should build the JSON kubectl printed for it (see its README).
  for (const std::string name :
       {"merge", "merge_then_key", "key_then_merge", "list_of_two", "list_reversed_between_keys",
        "deployment_container", "two_merge_keys", "merge_of_a_merge", "document_root", "inline_map",
        "merge_tag", "quoted_key", "empty_values"}) {
    INFO(name);
    auto expected = opctl::model::Json::parse(merge_fixture(name + ".json"));
    CHECK(only_document(merge_fixture(name + ".yaml")).value == expected);
  }
}

TEST_CASE("a merge overwrites the keys written before it; keys after it and the first map of a list win",
          "[yaml][yaml_merge]") {
  using opctl::model::Json;
  const std::string anchors = "a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\n";
  CHECK(only_document(anchors + "m: {x: 0, <<: *a}\n").value["m"] == Json({{"x", 1}, {"y", 1}}));
  CHECK(only_document(anchors + "m: {<<: *a, x: 0}\n").value["m"] == Json({{"x", 0}, {"y", 1}}));
  CHECK(only_document(anchors + "m: {<<: [*a, *b]}\n").value["m"] == Json({{"x", 1}, {"y", 1}, {"z", 2}}));
  CHECK(only_document(anchors + "m: {<<: [*b, *a]}\n").value["m"] == Json({{"x", 1}, {"y", 2}, {"z", 2}}));
  CHECK(only_document(anchors + "m: {<<: *a, <<: *b}\n").value["m"] == Json({{"x", 1}, {"y", 2}, {"z", 2}}));
  CHECK(only_document("a: &a {n: {p: 1, q: 1}}\nm:\n  <<: *a\n  n: {p: 2}\n").value["m"] ==
        Json({{"n", {{"p", 2}}}}));
}

TEST_CASE("a key written twice is still a duplicate, whatever merges come between", "[yaml][yaml_merge]") {
  auto problem = only_problem("a: &a {x: 1}\nm:\n  x: 0\n  <<: *a\n  x: 2\n");
  CHECK(problem.line == 5);
  CHECK(problem.message == "duplicate key \"x\"");
}

TEST_CASE("merged fields keep the lines of the map they came from; replaced fields lose theirs",
          "[yaml][yaml_merge]") {
  auto document = only_document("a: &a\n  x: 1\n  n:\n    p: 1\nm:\n  n:\n    q: 2\n  <<: *a\n");
  CHECK(document.field_lines.at("/m/x") == 2);
  CHECK(document.field_lines.at("/m/n") == 3);
  CHECK(document.field_lines.at("/m/n/p") == 4);
  CHECK_FALSE(document.field_lines.contains("/m/n/q"));
  CHECK_FALSE(document.field_lines.contains("/m/<<"));
}

TEST_CASE("a merge value that is not a map or a list of maps is an error at the << key, as in kubectl",
          "[yaml][yaml_merge]") {
  // Given the files kubectl refuses with "map merge requires map or sequence of maps as the value", we should
  // refuse them too, naming the file and the line of the << key.
  const std::vector<std::tuple<std::string, int, std::string>> cases{
      {"invalid_scalar.yaml", 8, "an alias to the scalar \"web\""},
      {"invalid_list_with_scalar.yaml", 8, "a list holding the scalar \"plain\""},
      {"invalid_alias_to_list.yaml", 10, "an alias to a list"},
      {"invalid_null.yaml", 6, "null"},
      {"invalid_list_in_list.yaml", 8, "a list holding a list"},
  };
  for (const auto& [file, line, found] : cases) {
    INFO(file);
    try {
      parse_yaml_documents(merge_fixture(file), file);
      FAIL("expected an error");
    } catch (const InvalidInputError& error) {
      REQUIRE(error.problems().size() == 1);
      CHECK(std::string(error.what()) ==
            file + ":" + std::to_string(line) +
                ": the merge key << needs a map or a list of maps as its value, not " + found);
    }
  }
}

TEST_CASE("tags decide a scalar's type; unknown tags keep the text; tags on collections are ignored",
          "[yaml]") {
  auto document = only_document(
      "a: !!str 42\nb: !!int \"42\"\nc: !!int abc\nd: !!float 1\ne: !!bool yes\nf: !!null ~\ng: !!str ~\n"
      "h: !!str\ni: !foo bar\nj: ! 42\nk: !!binary aGVsbG8=\nl: !<tag:yaml.org,2002:str> 5\nm: !!map {a: 1}\n"
      "n: !!str [1]\no: !!null\np: !!int\nq: !!null x\n");
  auto expected =
      opctl::model::Json::parse(R"({"a":"42","b":42,"c":"abc","d":1,"e":true,"f":null,"g":"~","h":"",
      "i":"bar","j":"42","k":"aGVsbG8=","l":"5","m":{"a":1},"n":[1],"o":null,"p":null,"q":"x"})");
  CHECK(document.value == expected);
  CHECK(only_document("%TAG !e! tag:example.com,2000:\n---\na: !e!foo 1\n").value["a"] == "1");
}

TEST_CASE("plain numbers follow go-yaml v2's grammar; anything else stays a string", "[yaml]") {
  auto document = only_document(
      "a: 1_000\nb: 0x1F\nc: -0x1F\nd: 0o17\ne: 017\nf: 1e5\ng: 1E-5\nh: .5\ni: 1.\nj: +1\nk: -0\n"
      "l: 99999999999999999999\nm: .inf\nn: .nan\no: 0b101\np: 1:20\nq: 00\nr: 0_1\ns: +.5e+3\nt: 1_0.5_\n"
      "u: -.inf\nv: 1.2.3\nw: 0x\nx: 1e\ny: '1'\nz: 1__\n");
  auto expected = opctl::model::Json::parse(R"({"a":1000,"b":31,"c":-31,"d":"0o17","e":17.0,"f":100000.0,
      "g":1e-05,"h":0.5,"i":1.0,"j":1,"k":0,"l":1e+20,"m":".inf","n":".nan","o":"0b101","p":"1:20","q":0.0,
      "r":1.0,"s":500.0,"t":10.5,"u":"-.inf","v":"1.2.3","w":"0x","x":"1e","y":"1","z":1})");
  CHECK(document.value == expected);
  CHECK(document.value["e"].is_number_float());
  CHECK(document.value["a"].is_number_integer());
}

TEST_CASE("a number no double holds is an error at its line; an underflow is zero; quoted it is a string",
          "[yaml]") {
  for (const std::string text : {"1e999", "-1e999", "!!float 1e999", "1_0e400"}) {
    try {
      parse_yaml_documents("a: 1\nb:\n  c: " + text + "\n", "big.yaml");
      FAIL("expected an error for " << text);
    } catch (const InvalidInputError& error) {
      REQUIRE(error.problems().size() == 1);
      CHECK(error.problems()[0].file == "big.yaml");
      CHECK(error.problems()[0].line == 3);
      CHECK_THAT(error.what(), Catch::Contains("number out of range"));
    }
  }
  auto document = only_document("tiny: 1e-999\nhex: 0xFFFFFFFFFFFFFFFFFF\nquoted: \"1e999\"\n");
  CHECK(document.value["tiny"] == 0.0);
  CHECK(document.value["hex"].is_number_float());
  CHECK(document.value["quoted"] == "1e999");
  // Written back, the string is quoted so that it stays one.
  opctl::model::Json value = {{"quoted", "1e999"}};
  CHECK(opctl::model::to_yaml(value).find("\"1e999\"") != std::string::npos);
  CHECK(parse_yaml_documents(opctl::model::to_yaml(value), "x.yaml").front().value == value);
}

TEST_CASE("booleans and nulls are the YAML 1.1 words; quoting keeps them strings", "[yaml]") {
  auto document = only_document(
      "a: yes\nb: No\nc: y\nd: N\ne: on\nf: OFF\ng: tRue\nh: TRUE\ni: 'null'\nj: \"~\"\nk: ''\nl: Null\n"
      "key with space: y\n");
  auto expected = opctl::model::Json::parse(R"({"a":true,"b":false,"c":true,"d":false,"e":true,"f":false,
      "g":"tRue","h":true,"i":"null","j":"~","k":"","l":null,"key with space":true})");
  CHECK(document.value == expected);
}

TEST_CASE("block, folded and multi-line scalars keep YAML's line folding and chomping", "[yaml]") {
  auto document = only_document(
      "a: |\n  line1\n  line2\n\n\nb: |-\n  x\n\nc: |+\n  y\n\n\nd: >\n  folded\n  text\n\n  para\n"
      "e: >-\n  x\n   more\n  y\nf: |2\n    indented\ng: |\nh: plain\n  multi line\n\n  with para\n"
      "i: \"double\n  quoted\\x41\\u263A\"\nj: 'single\n  ''q'''\n");
  auto expected = opctl::model::Json::parse(R"({"a":"line1\nline2\n","b":"x","c":"y\n\n\n",
      "d":"folded text\npara\n","e":"x\n more\ny","f":"  indented\n","g":"",
      "h":"plain multi line\nwith para","i":"double quotedA☺","j":"single 'q'"})");
  CHECK(document.value == expected);
  CHECK(document.field_lines.at("/i") == 29);
}

TEST_CASE("documents that are empty, a comment or a plain null are skipped; tagged ones and '' are not",
          "[yaml]") {
  auto documents = parse_yaml_documents(
      "---\n---\na: 1\n...\n---\n# c\n...\n--- ~\n--- ''\n--- &a ~\n--- !!null ~\n--- !!str\n---\n- 1\n--- "
      "hello\n",
      "f.yaml");
  REQUIRE(documents.size() == 6);
  CHECK(documents[0].line == 3);
  CHECK(documents[1].value == "");
  CHECK(documents[1].line == 9);
  CHECK(documents[2].value.is_null());
  CHECK(documents[2].line == 11);
  CHECK(documents[3].value == "");  // `--- !!str`
  CHECK(documents[3].line == 12);
  CHECK(documents[4].value == opctl::model::Json::array({1}));
  CHECK(documents[4].line == 14);
  CHECK(documents[5].value == "hello");
  CHECK(parse_yaml_documents("", "f.yaml").empty());
  CHECK(parse_yaml_documents("# only\n", "f.yaml").empty());
}

TEST_CASE("a key written as ~, null or nothing is the empty string, so two of them are duplicates",
          "[yaml]") {
  CHECK(only_document("~: 1\nb: 2\n").value == opctl::model::Json({{"", 1}, {"b", 2}}));
  auto problem = only_problem("~: 1\nnull: 2\n");
  CHECK(problem.line == 2);
  CHECK(problem.message == "duplicate key \"\"");
}

TEST_CASE("keys are compared by their text, quoted or not, also inside an expanded alias", "[yaml]") {
  CHECK(only_problem("a: 1\n\"a\": 2\n").line == 2);
  CHECK(only_problem("b:\n  c: 1\n  c: 2\n").line == 3);
  CHECK(only_problem("x: &x {a: 1, a: 2}\n").message == "duplicate key \"a\"");
}

TEST_CASE("a mapping or sequence as a key is refused at the key's line", "[yaml]") {
  CHECK(only_problem("a: 1\n[a, b]: 1\n").line == 2);
  auto problem = only_problem("{a: 1}: 2\n");
  CHECK(problem.line == 1);
  CHECK(problem.message == "mapping keys must be strings");
}

TEST_CASE("field pointers escape ~ and / and record the key's line", "[yaml]") {
  auto document = only_document("metadata:\n  annotations:\n    a/b: 1\n    a~b: 2\n    \"\": 3\n");
  CHECK(document.field_lines.at("/metadata/annotations/a~1b") == 3);
  CHECK(document.field_lines.at("/metadata/annotations/a~0b") == 4);
  CHECK(document.field_lines.at("/metadata/annotations/") == 5);
  CHECK(document.field_lines.size() == 5);
}

TEST_CASE("a missing sequence item is null on the line of the token after it", "[yaml]") {
  // As yaml-cpp had it: libyaml would place it right after its `-`.
  auto document = only_document("a:\n- x\n-\n\n  # a comment\nb: 1\nc:\n  -\n  - d\n");
  CHECK(document.value["a"] == opctl::model::Json::array({"x", nullptr}));
  CHECK(document.field_lines.at("/a/1") == 6);
  CHECK(document.field_lines.at("/c/0") == 9);
  CHECK(only_document("- a\n-").field_lines.at("/1") == 2);
  CHECK(only_document("- a\n-\n").field_lines.at("/1") == 3);
}

TEST_CASE("CRLF line endings count one line each", "[yaml]") {
  auto document = only_document("a: 1\r\nb:\r\n  - x\r\nc: |\r\n  t\r\n");
  CHECK(document.value == opctl::model::Json({{"a", 1}, {"b", {"x"}}, {"c", "t\n"}}));
  CHECK(document.field_lines.at("/b/0") == 3);
  CHECK(document.field_lines.at("/c") == 4);
}

TEST_CASE("a syntax error anywhere in the stream is reported before a content error of an earlier document",
          "[yaml]") {
  // yaml-cpp parsed the whole stream before converting any document, and the error names what it found first.
  auto problem = only_problem("a: 1\na: 2\n---\nb: [\n");
  CHECK_THAT(problem.message, Catch::StartsWith("YAML syntax error"));
  CHECK(problem.line == 5);
  CHECK(only_problem("a: 1\n---\nb: 1\nb: 2\n").message == "duplicate key \"b\"");
}

TEST_CASE("nesting past yaml-cpp's own parse guard (499) is reported before an earlier document's error",
          "[yaml]") {
  std::string deep = "a: 1\na: 2\n---\n";
  for (int i = 0; i < 600; ++i)
    deep += std::string(std::size_t(i), ' ') + "k:\n";
  auto problem = only_problem(deep);
  CHECK(problem.message == "nesting deeper than 200 levels");
  CHECK(problem.line == 502);
}

TEST_CASE("libyaml refuses what yaml-cpp let through: invalid UTF-8, control characters, broken structure",
          "[yaml][libyaml]") {
  // Each of these parsed before (some into surprising values); kubectl's reader refuses them too.
  for (const std::string& text : {
           std::string("a: 1 # caf\xe9\n"),   // Latin-1 in a comment
           std::string("a: \x07x\n"),         // a control character
           std::string("a: [x, , y]\n"),      // was [x, null, true]
           std::string("- a\nb: c\n"),        // was two documents
           std::string("a: 1\n...\nb: 2\n"),  // a bare document after `...`
           std::string("a: \"unterminated\n"),
           std::string("{: 1, b: 2}\n"),
       }) {
    CAPTURE(text);
    CHECK_THAT(only_problem(text).message, Catch::StartsWith("YAML syntax error"));
  }
}

TEST_CASE("an explicit empty key `? ` is the empty string (yaml-cpp made it a mapping and refused it)",
          "[yaml][libyaml]") {
  CHECK(only_document("? \n: 3\nb: 4\n").value == opctl::model::Json({{"", 3}, {"b", 4}}));
}

TEST_CASE("escapes that yaml-cpp wrote as invalid UTF-8 are proper characters", "[yaml][libyaml]") {
  // yaml-cpp turned \N into the single byte 0x85, which nlohmann::json refused to serialise.
  CHECK(only_document("a: \"x\\Ny\\L\\P\"\n").value["a"] == "x\u0085y\u2028\u2029");
}
