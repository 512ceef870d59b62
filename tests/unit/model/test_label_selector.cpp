// -l/--selector reads kubectl's label-selector syntax and selects as the API
// server does (k8s.io/apimachinery/pkg/labels): the cases below follow its
// own tests, with opctl's error messages.
#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "model/label_selector.hpp"

using opctl::InvalidInputError;
using Json = nlohmann::json;
using opctl::model::LabelSelector;
using opctl::model::parse_label_selector;

namespace {

LabelSelector parse(const std::string& text) {
  return parse_label_selector(text, "--selector");
}

bool selects(const std::string& text, const Json& labels) {
  return parse(text).matches(labels);
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InvalidInputError& error) {
    return error.problems().front().to_string();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("an empty selector selects every object, labelled or not", "[label_selector]") {
  // Given no requirement, we should select objects with and without labels.
  CHECK(parse("").empty());
  CHECK(parse("  ").empty());
  CHECK(selects("", Json{{"app", "web"}}));
  CHECK(selects("", Json()));
}

TEST_CASE("equality selects on the value; = and == are the same", "[label_selector]") {
  // Given app=web, we should select app: web only, not other values nor a missing label.
  Json web{{"app", "web"}, {"tier", "front"}};
  CHECK(selects("app=web", web));
  CHECK(selects("app==web", web));
  CHECK(selects(" app = web ", web));
  CHECK_FALSE(selects("app=db", web));
  CHECK_FALSE(selects("team=a", web));
  CHECK_FALSE(selects("app=web", Json()));
}

TEST_CASE("inequality selects other values and objects without the label, as kubectl", "[label_selector]") {
  // Given app!=web, we should select app: db and an object without app, not app: web.
  CHECK(selects("app!=web", Json{{"app", "db"}}));
  CHECK(selects("app!=web", Json{{"tier", "x"}}));
  CHECK(selects("app!=web", Json()));
  CHECK_FALSE(selects("app!=web", Json{{"app", "web"}}));
}

TEST_CASE("in and notin select on a set of values", "[label_selector]") {
  // Given env in (prod,staging), we should select those two values only; notin the rest,
  // including objects without env.
  CHECK(selects("env in (prod,staging)", Json{{"env", "staging"}}));
  CHECK(selects("env in(prod, staging )", Json{{"env", "prod"}}));
  CHECK_FALSE(selects("env in (prod,staging)", Json{{"env", "dev"}}));
  CHECK_FALSE(selects("env in (prod)", Json()));
  CHECK(selects("env notin (prod)", Json{{"env", "dev"}}));
  CHECK(selects("env notin (prod)", Json()));
  CHECK_FALSE(selects("env notin (prod,dev)", Json{{"env", "dev"}}));
}

TEST_CASE("a bare key requires the label, !key its absence", "[label_selector]") {
  // Given "app" and "!legacy", we should look only at whether the label is there.
  CHECK(selects("app", Json{{"app", ""}}));
  CHECK_FALSE(selects("app", Json{{"other", "x"}}));
  CHECK(selects("!legacy", Json{{"app", "web"}}));
  CHECK(selects("!legacy", Json()));
  CHECK_FALSE(selects("!legacy", Json{{"legacy", "true"}}));
}

TEST_CASE("commas join requirements with AND", "[label_selector]") {
  // Given app=web,tier!=db,!legacy, we should need all three.
  std::string selector = "app=web,tier!=db,!legacy";
  CHECK(selects(selector, Json{{"app", "web"}, {"tier", "front"}}));
  CHECK_FALSE(selects(selector, Json{{"app", "web"}, {"tier", "db"}}));
  CHECK_FALSE(selects(selector, Json{{"app", "web"}, {"legacy", "yes"}}));
  CHECK_FALSE(selects(selector, Json{{"app", "db"}}));
}

TEST_CASE("an empty value is a value: tier= selects tier set to empty", "[label_selector]") {
  // Given tier= and tier in (a,), we should select tier: "" and not a missing tier for "=".
  CHECK(selects("tier=", Json{{"tier", ""}}));
  CHECK_FALSE(selects("tier=", Json()));
  CHECK(selects("tier=,app=web", Json{{"tier", ""}, {"app", "web"}}));
  CHECK(selects("tier in (a,)", Json{{"tier", ""}}));
}

TEST_CASE("> and < compare integer values; a non-integer label never matches", "[label_selector]") {
  // Given replicas>2, we should select 3 and not 2, "x", or a missing label.
  CHECK(selects("replicas>2", Json{{"replicas", "3"}}));
  CHECK_FALSE(selects("replicas>2", Json{{"replicas", "2"}}));
  CHECK(selects("replicas<2", Json{{"replicas", "1"}}));
  CHECK_FALSE(selects("replicas<2", Json{{"replicas", "x"}}));
  CHECK_FALSE(selects("replicas<2", Json()));
}

TEST_CASE("prefixed keys are qualified names", "[label_selector]") {
  // Given app.kubernetes.io/name=web, we should match the prefixed label exactly.
  CHECK(selects("app.kubernetes.io/name=web", Json{{"app.kubernetes.io/name", "web"}}));
  CHECK_FALSE(selects("app.kubernetes.io/name=web", Json{{"name", "web"}}));
}

TEST_CASE("matches_object reads metadata.labels of a whole object", "[label_selector]") {
  // Given objects with, without and with null labels, we should read their labels or none.
  auto selector = parse("app=web");
  CHECK(selector.matches_object(Json::parse(R"({"metadata":{"name":"a","labels":{"app":"web"}}})")));
  CHECK_FALSE(selector.matches_object(Json::parse(R"({"metadata":{"name":"a"}})")));
  CHECK_FALSE(selector.matches_object(Json::parse(R"({"metadata":{"name":"a","labels":null}})")));
  CHECK(parse("!app").matches_object(Json::parse(R"({"kind":"ConfigMap"})")));
}

TEST_CASE("to_string gives the canonical form kubectl prints", "[label_selector]") {
  // Given a selector written loosely, we should print it back canonically (sets sorted).
  CHECK(parse(" app == web , env in (staging, prod) ,!legacy,x").to_string() ==
        "app=web,env in (prod,staging),!legacy,x");
}

TEST_CASE("a malformed selector names the flag, the character and what was expected", "[label_selector]") {
  // Given broken selectors, we should say where, what we found and what would have been right.
  CHECK(error_of("app=web,") ==
        "--selector: at character 9 of 'app=web,': expected a label key, found the end");
  CHECK(error_of("app in (web") ==
        "--selector: at character 12 of 'app in (web': expected ',' or ')' after a value, found the end");
  CHECK(error_of("app in web") ==
        "--selector: at character 8 of 'app in web': expected '(' to open the values, found 'web'");
  CHECK(error_of("app web") ==
        "--selector: at character 5 of 'app web': expected an operator (=, ==, !=, in, notin, >, <), ',' or "
        "the end, found 'web'");
  CHECK(error_of("=web") == "--selector: at character 1 of '=web': expected a label key, found '='");
  CHECK(error_of("app=web=x") ==
        "--selector: at character 8 of 'app=web=x': expected ',' or the end after a requirement, found '='");
  CHECK(error_of("!app=web") ==
        "--selector: at character 5 of '!app=web': expected ',' or the end after a requirement, found '='");
  CHECK(error_of("n>x") == "--selector: at character 3 of 'n>x': expected an integer after '>', found 'x'");
}

TEST_CASE("keys and values must be valid label names", "[label_selector]") {
  // Given a value with a space-free but invalid character, an over-long value and a bad prefix,
  // we should refuse each at its character.
  CHECK(error_of("app=we$b") ==
        "--selector: at character 5 of 'app=we$b': value 'we$b' may hold only "
        "letters, digits, '-', '_' and '.', found 'we$b'");
  CHECK(error_of("app=-web").find("must start and end with a letter or digit") != std::string::npos);
  CHECK(error_of("app=" + std::string(64, 'a')).find("longer than 63 characters") != std::string::npos);
  CHECK(error_of("Example.com/app=web").find("prefix of key") != std::string::npos);
  CHECK(error_of("example.com/=web").find("has no name") != std::string::npos);
  CHECK(error_of("in=web").find("expected a label key, found 'in'") != std::string::npos);
}
