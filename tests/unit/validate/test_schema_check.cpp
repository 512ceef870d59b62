#include <catch2/catch.hpp>
#include <memory>

#include "validate/schema_check.hpp"
#include "validate_fixtures.hpp"

using opctl::model::Json;
using opctl::validate::check_schema;
using opctl::validate::DirectorySchemaSource;
using opctl::validate::OpenApiDocument;
using opctl::validate::Violation;
namespace testing = opctl::validate::testing;

namespace {

std::shared_ptr<const OpenApiDocument> apps_v1() {
  DirectorySchemaSource source(testing::schema_dir());
  return source.load({"apps/v1"}).documents.at("apps/v1");
}

std::vector<Violation> check_deployment(const std::string& yaml) {
  auto document = apps_v1();
  auto objects = testing::objects_from(yaml);
  REQUIRE(objects.size() == 1);
  return check_schema(objects[0].body(), *document->schema_for(objects[0].gvk()), *document);
}

const char* k_deployment_head = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
)";

// A schema document in the shape the API server serves, small enough to read.
OpenApiDocument small_document() {
  return OpenApiDocument(Json::parse(R"({
    "openapi": "3.0.0",
    "components": {"schemas": {
      "example.Widget": {
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Widget"}],
        "required": ["spec"],
        "properties": {
          "apiVersion": {"type": "string"}, "kind": {"type": "string"},
          "metadata": {"type": "object"},
          "spec": {"allOf": [{"$ref": "#/components/schemas/example.WidgetSpec"}]}
        }
      },
      "example.WidgetSpec": {
        "type": "object",
        "required": ["size", "owner"],
        "properties": {
          "size": {"type": "integer", "format": "int32"},
          "big": {"type": "integer", "format": "int64"},
          "ratio": {"type": "number"},
          "port": {"x-kubernetes-int-or-string": true},
          "owner": {"type": "string", "nullable": true},
          "mode": {"type": "string", "enum": ["fast", "safe"]},
          "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
          "strict": {"type": "object", "additionalProperties": false},
          "limits": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/quantity"}},
          "raw": {"type": "object"},
          "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
          "either": {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
          "replicas": {"type": "integer", "minimum": 1, "maximum": 5},
          "code": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"},
          "hosts": {"type": "array", "minItems": 1, "items": {"type": "string"}},
          "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                       "properties": {"spec": {"type": "object"}}}
        }
      },
      "quantity": {"oneOf": [{"type": "string"}, {"type": "number"}]}
    }}
  })"),
                         "small.json");
}

std::vector<Violation> check_widget(const std::string& spec_json) {
  auto document = small_document();
  Json value = Json::parse(
      R"({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": )" +
      spec_json + "}");
  return check_schema(value, *document.schema_for({"example.com", "v1", "Widget"}), document);
}

std::vector<std::string> fields_of(const std::vector<Violation>& violations) {
  std::vector<std::string> fields;
  for (const auto& violation : violations)
    fields.push_back(violation.path.field);
  return fields;
}

}  // namespace

TEST_CASE("a valid Deployment against the real apps/v1 schema has no violations", "[validate][schema]") {
  // Given the example Deployment, we should find nothing: quantities, int-or-string ports and label maps are
  // fine.
  auto violations = check_deployment(std::string(k_deployment_head) + R"(  replicas: 2
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          imagePullPolicy: IfNotPresent
          ports: [{name: http, containerPort: 80}]
          env: [{name: A, value: "1"}]
          resources: {requests: {cpu: 50m, memory: 64Mi}, limits: {cpu: 1, memory: 1.5Gi}}
          readinessProbe: {httpGet: {path: /, port: http}}
)");
  for (const auto& violation : violations)
    INFO(violation.path.field << ": " << violation.message);
  CHECK(violations.empty());
}

TEST_CASE("a wrong type is reported at its field path with the value", "[validate][schema]") {
  auto violations = check_deployment(std::string(k_deployment_head) + R"(  replicas: "two"
  selector: {matchLabels: {app: web}}
  template: {spec: {containers: [{name: web, image: nginx}]}}
)");
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].path.field == "spec.replicas");
  CHECK(violations[0].path.pointer == "/spec/replicas");
  CHECK(violations[0].message == "must be an integer, not the string \"two\"");
}

TEST_CASE("an unknown field is an error that suggests the closest known one", "[validate][schema]") {
  auto violations = check_deployment(std::string(k_deployment_head) + R"(  selector: {matchLabels: {app: web}}
  templat: {}
  template: {spec: {containers: [{name: web, image: nginx, imagePullPolicy: Sometimes}]}}
)");
  REQUIRE(violations.size() == 2);
  CHECK(violations[0].path.field == "spec.templat");
  CHECK(violations[0].message == "unknown field (did you mean \"template\"?)");
  CHECK(violations[1].path.field == "spec.template.spec.containers[0].imagePullPolicy");
  CHECK(violations[1].message ==
        "unsupported value \"Sometimes\": must be one of \"Always\", \"IfNotPresent\", \"Never\"");
}

TEST_CASE("a missing required field is reported where it belongs", "[validate][schema]") {
  // Given a container without a name (required) and a Deployment without a selector (required)
  auto violations =
      check_deployment(std::string(k_deployment_head) + R"(  template: {spec: {containers: [{image: nginx}]}}
)");
  CHECK(fields_of(violations) ==
        std::vector<std::string>{"spec.template.spec.containers[0].name", "spec.selector"});
  CHECK(violations[0].message == "missing required field \"name\"");
}

TEST_CASE("every problem of one object is reported in one run", "[validate][schema]") {
  auto violations = check_deployment(std::string(k_deployment_head) + R"(  replicas: 1.5
  paused: "yes"
  selector: {matchLabels: {app: 7}}
  template:
    spec:
      containers:
        - name: web
          image: nginx
          ports: [{containerPort: "80"}, {containerPort: 99999999999}]
          resources: {requests: {memory: 64MB}}
          env: [{name: A, value: 1}, {name: A, value: "2"}]
        - name: web
          image: nginx
)");
  CHECK(fields_of(violations) == std::vector<std::string>{
                                     "spec.paused",
                                     "spec.replicas",
                                     "spec.selector.matchLabels.app",
                                     "spec.template.spec.containers[0].env[0].value",
                                     "spec.template.spec.containers[0].env[1]",
                                     "spec.template.spec.containers[0].ports[0].containerPort",
                                     "spec.template.spec.containers[0].ports[1].containerPort",
                                     "spec.template.spec.containers[0].resources.requests.memory",
                                     "spec.template.spec.containers[1]",
                                 });
  CHECK(violations[0].message == "must be a boolean (true or false), not the string \"yes\"");
  CHECK(violations[1].message == "must be an integer, not the number 1.5");
  CHECK(violations[2].message == "must be a string, not the number 7 (quote it)");
  CHECK(violations[4].message ==
        "duplicate entry with name=\"A\" (the same key as spec.template.spec.containers[0].env[0]; "
        "server-side apply "
        "rejects it)");
  CHECK(violations[5].message == "must be an integer, not the string \"80\" (remove the quotes)");
  CHECK(violations[6].message.starts_with("99999999999 is out of range for int32"));
  CHECK(violations[7].message == "\"64MB\" is not a quantity (like 500m, 64Mi, 1.5, 2)");
}

TEST_CASE("int-or-string accepts integers and strings only", "[validate][schema]") {
  CHECK(check_widget(R"({"size": 1, "owner": "me", "port": 8080})").empty());
  CHECK(check_widget(R"({"size": 1, "owner": "me", "port": "http"})").empty());
  auto violations = check_widget(R"({"size": 1, "owner": "me", "port": 1.5})");
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].message == "must be an integer or a string, not the number 1.5");
}

TEST_CASE("null counts as absent unless the field is nullable", "[validate][schema]") {
  // Given size: null (required, not nullable) and owner: null (required, nullable)
  auto violations = check_widget(R"({"size": null, "owner": null, "mode": null})");
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].path.field == "spec.size");
  CHECK(violations[0].message == "missing required field \"size\"");
}

TEST_CASE("preserve-unknown-fields, additionalProperties and free-form objects", "[validate][schema]") {
  CHECK(check_widget(R"({"size": 1, "owner": "o", "extra": {"anything": [1]}, "raw": {"x": {"y": 1}}})")
            .empty());
  auto violations = check_widget(R"({"size": 1, "owner": "o", "strict": {"x": 1}, "limits": {"cpu": true}})");
  CHECK(fields_of(violations) == std::vector<std::string>{"spec.limits.cpu", "spec.strict.x"});
  CHECK(violations[0].message == "must be a string or a number, not the boolean true");
  CHECK(violations[1].message == "unknown field");
}

TEST_CASE("enum, int64 range, sets, oneOf and embedded resources", "[validate][schema]") {
  auto violations = check_widget(R"({"size": 1, "owner": "o", "mode": "slow", "big": 18446744073709551615,
      "tags": ["a", "b", "a"], "either": {"c": 1},
      "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {}, "other": 1}})");
  CHECK(fields_of(violations) == std::vector<std::string>{"spec.big", "spec.either", "spec.mode",
                                                          "spec.tags[2]", "spec.template.other"});
  CHECK(violations[1].message == "matches none of the allowed forms (oneOf/anyOf)");
  CHECK(violations[2].message == "unsupported value \"slow\": must be one of \"fast\", \"safe\"");
  CHECK(violations[3].message ==
        "duplicate value \"a\" (the same as spec.tags[0]; server-side apply rejects it)");
}

TEST_CASE("a missing required object is reported once, at the parent", "[validate][schema]") {
  auto document = small_document();
  auto violations = check_schema(Json::parse(R"({"metadata": {"name": "w"}})"),
                                 *document.schema_for({"example.com", "v1", "Widget"}), document);
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].path.field == "spec");
  CHECK(violations[0].path.pointer == "/spec");
}

TEST_CASE("the limits CRD schemas use: minimum, maximum, lengths, patterns, item counts",
          "[validate][schema]") {
  CHECK(check_widget(R"({"size": 1, "owner": "o", "replicas": 5, "code": "abc", "hosts": ["a"]})").empty());
  auto violations = check_widget(R"({"size": 1, "owner": "o", "replicas": 0, "code": "ABCD", "hosts": []})");
  REQUIRE(violations.size() == 4);
  CHECK(violations[0].message == "has 4 characters, more than the maximum 3");
  CHECK(violations[1].message == "\"ABCD\" does not match the pattern ^[a-z]+$");
  CHECK(violations[2].message == "has 0 items, fewer than the minimum 1");
  CHECK(violations[3].message == "0 is less than the minimum 1");
}

namespace {

// One string field with `pattern`, in a document of its own.
std::vector<Violation> check_pattern(const std::string& pattern, const std::string& value) {
  Json schema_document = {
      {"openapi", "3.0.0"},
      {"components",
       {{"schemas",
         {{"example.Thing",
           {{"type", "object"},
            {"x-kubernetes-group-version-kind",
             Json::array({{{"group", "example.com"}, {"version", "v1"}, {"kind", "Thing"}}})},
            {"properties", {{"value", {{"type", "string"}, {"pattern", pattern}}}}}}}}}}}};
  OpenApiDocument document(schema_document, "test");
  return check_schema(Json{{"value", value}}, *document.schema_for({"example.com", "v1", "Thing"}), document);
}

}  // namespace

TEST_CASE("a pattern runs in RE2 syntax, as the API server's Go regexp runs it", "[validate][schema]") {
  // From real CRDs: cert-manager's duration, Gateway API's hostname and its path value, a case-insensitive
  // flag.
  CHECK(check_pattern("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$", "1h30m").empty());
  CHECK(check_pattern("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$", "90 minutes").size() == 1);
  std::string hostname = "^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
  CHECK(check_pattern(hostname, "*.example.com").empty());
  CHECK(check_pattern(hostname, "Example.com").size() == 1);
  CHECK(check_pattern("^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$", "/api/v1").empty());
  // std::regex cannot compile (?i); RE2 and Go can.
  CHECK(check_pattern("(?i)^yes|no$", "YES").empty());
  CHECK(check_pattern("(?i)^yes|no$", "maybe").size() == 1);
  // Go's \z (the end of the text).
  CHECK(check_pattern("^[a-z]+\\z", "abc").empty());
}

TEST_CASE("a pattern RE2 refuses is a warning naming it, not silence", "[validate][schema]") {
  auto violations = check_pattern("(?<name>a)\\1", "aa");  // a back-reference: neither RE2 nor Go has them
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].warning);
  CHECK_THAT(violations[0].message,
             Catch::StartsWith("not checked against the schema's pattern (?<name>a)\\1: "
                               "RE2 cannot compile it"));
}
