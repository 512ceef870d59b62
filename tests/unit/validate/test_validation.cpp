#include <catch2/catch.hpp>

#include "kube/http_transport.hpp"
#include "validate/kind_validator.hpp"
#include "validate/schema_source.hpp"
#include "validate/validation.hpp"
#include "validate_fixtures.hpp"

using opctl::validate::DirectorySchemaSource;
using opctl::validate::Finding;
using opctl::validate::validate_objects;
using opctl::validate::ValidateOptions;
using opctl::validate::ValidationReport;
namespace testing = opctl::validate::testing;

namespace {

ValidationReport offline(const std::string& yaml, const std::string& default_namespace = "") {
  ValidateOptions options;
  options.default_namespace = default_namespace;
  return validate_objects(testing::objects_from(yaml), options);
}

ValidationReport with_schemas(const std::string& yaml) {
  DirectorySchemaSource schemas(testing::schema_dir());
  ValidateOptions options;
  options.schemas = &schemas;
  return validate_objects(testing::objects_from(yaml, "app.yaml"), options);
}

std::vector<std::string> lines_of(const ValidationReport& report) {
  std::vector<std::string> lines;
  for (const auto& finding : report.findings)
    lines.push_back(opctl::validate::to_string(finding.severity) + ": " + finding.problem.to_string());
  return lines;
}

}  // namespace

TEST_CASE("a cluster-scoped built-in kind with a namespace is an error offline", "[validate]") {
  auto report = offline(R"(apiVersion: v1
kind: Namespace
metadata:
  name: shop
  namespace: default
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader, namespace: shop}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop}
)");
  CHECK(lines_of(report) ==
        std::vector<std::string>{
            "error: test.yaml:5: metadata.namespace: Namespace is cluster-scoped and cannot have "
            "a namespace (remove metadata.namespace)",
            "error: test.yaml:9: metadata.namespace: ClusterRole is cluster-scoped and cannot "
            "have a namespace (remove metadata.namespace)",
        });
  CHECK(report.objects == 3);
  CHECK_FALSE(report.valid());
}

TEST_CASE("a CRD in the set decides its kind's scope", "[validate]") {
  auto report = offline(R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: shop}
)");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].problem.field == "metadata.namespace");
  CHECK(report.findings[0].object == "example.com/Widget shop/w");
}

TEST_CASE("a custom resource at a version its CRD in the set does not serve is an error", "[validate]") {
  const std::string manifests = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - {name: v1, served: true, storage: true}
  - {name: v1beta1, served: false, storage: false}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: current, namespace: shop}
---
apiVersion: example.com/v1beta1
kind: Widget
metadata: {name: old, namespace: shop}
---
apiVersion: example.com/v2
kind: Widget
metadata: {name: future, namespace: shop}
)";
  const std::vector<std::string> expected = {
      "error: test.yaml:16: apiVersion: the CustomResourceDefinition in the manifests serves kind \"Widget\" "
      "of "
      "group \"example.com\" at v1, not at \"v1beta1\"",
      "error: test.yaml:20: apiVersion: the CustomResourceDefinition in the manifests serves kind \"Widget\" "
      "of "
      "group \"example.com\" at v1, not at \"v2\"",
  };
  // Given no cluster, we should refuse both objects at their apiVersion line.
  CHECK(lines_of(offline(manifests)) == expected);

  // Given a cluster that serves every version today, we should refuse them all the same: the set's CRD is
  // applied first and then the API server would refuse them halfway through the pass.
  ValidateOptions options;
  options.cluster_scope = [](const opctl::model::GroupVersionKind&) -> std::optional<bool> { return true; };
  CHECK(lines_of(validate_objects(testing::objects_from(manifests), options)) == expected);
}

TEST_CASE("the cluster's discovery decides scopes and which kinds exist", "[validate]") {
  ValidateOptions options;
  options.cluster_scope = [](const opctl::model::GroupVersionKind& gvk) -> std::optional<bool> {
    if (gvk.kind == "Gadget") return false;
    if (gvk.kind == "ConfigMap") return true;
    return std::nullopt;
  };
  auto report = validate_objects(testing::objects_from(R"(apiVersion: example.com/v1
kind: Gadget
metadata: {name: g, namespace: shop}
---
apiVersion: example.com/v1
kind: Gizmo
metadata: {name: z}
)"),
                                 options);
  CHECK(lines_of(report) ==
        std::vector<std::string>{
            "error: test.yaml:3: metadata.namespace: Gadget is cluster-scoped and cannot have a "
            "namespace (remove metadata.namespace)",
            "error: test.yaml:6: kind: the cluster does not serve kind \"Gizmo\" in apiVersion "
            "\"example.com/v1\" and no CustomResourceDefinition in the manifests defines it",
        });
}

TEST_CASE("the wave annotation must be an integer", "[validate]") {
  auto report = offline(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  annotations:
    opctl.io/wave: "-2"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  annotations:
    opctl.io/wave: "first"
)");
  CHECK(lines_of(report) ==
        std::vector<std::string>{
            "error: test.yaml:13: metadata.annotations.opctl.io/wave: must be an integer, not "
            "\"first\"",
        });
}

TEST_CASE("defaulting the namespace can make two objects one", "[validate]") {
  auto report = offline(R"(apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: shop}
)",
                        "shop");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].problem.message.starts_with("duplicate object ConfigMap shop/a"));
}

TEST_CASE("every schema problem of every object is reported with its line", "[validate][schema]") {
  auto report = with_schemas(R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: "two"
  selector:
    matchLabels: {app: web}
  templat: {}
  template:
    spec:
      containers:
        - image: nginx
          imagePullPolicy: Sometimes
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: Cluster
  ports:
    - port: http
)");
  CHECK(lines_of(report) ==
        std::vector<std::string>{
            "error: app.yaml:6: spec.replicas: must be an integer, not the string \"two\"",
            "error: app.yaml:9: spec.templat: unknown field (did you mean \"template\"?)",
            "error: app.yaml:13: spec.template.spec.containers[0].name: missing required field \"name\"",
            "error: app.yaml:14: spec.template.spec.containers[0].imagePullPolicy: unsupported value "
            "\"Sometimes\": "
            "must be one of \"Always\", \"IfNotPresent\", \"Never\"",
            "error: app.yaml:21: spec.type: unsupported value \"Cluster\": must be one of \"ClusterIP\", "
            "\"ExternalName\", \"LoadBalancer\", \"NodePort\"",
            "error: app.yaml:23: spec.ports[0].port: must be an integer, not the string \"http\"",
        });
  CHECK(report.count(Finding::Severity::error) == 6);
}

TEST_CASE("a kind the schema document does not define is an error with a suggestion", "[validate][schema]") {
  auto report = with_schemas("apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: web}\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].problem.field == "kind");
  CHECK(report.findings[0].problem.message.starts_with("apiVersion \"apps/v1\" has no kind \"Deploymnet\""));
  CHECK(report.findings[0].problem.message.ends_with("(did you mean \"Deployment\"?)"));
}

TEST_CASE("objects without a schema document are counted in a note", "[validate][schema]") {
  auto report = with_schemas(R"(apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: a}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: b}
)");
  CHECK(report.valid());
  REQUIRE(report.notes.size() == 1);
  CHECK(report.notes[0] ==
        "no schema for apiVersion networking.k8s.io/v1 (no file apis__networking.k8s.io__v1.json in " +
            testing::schema_dir() + "): 2 objects not checked against a schema");
}

TEST_CASE("the JSON report has a summary and one entry per finding", "[validate]") {
  auto report = offline("apiVersion: v1\nkind: Namespace\nmetadata: {name: a, namespace: b}\n");
  auto json = opctl::validate::report_to_json(report);
  CHECK(json["kind"] == "ValidationReport");
  CHECK(json["summary"]["objects"] == 1);
  CHECK(json["summary"]["errors"] == 1);
  CHECK(json["summary"]["valid"] == false);
  CHECK(json["findings"][0]["severity"] == "error");
  CHECK(json["findings"][0]["line"] == 3);
  CHECK(json["findings"][0]["field"] == "metadata.namespace");
  CHECK(json["findings"][0]["object"] == "Namespace b/a");
}

TEST_CASE("opctl's own kinds are known where the cluster does not serve them yet", "[validate]") {
  // Given the Cluster kind's CRD is opctl's but not installed, we should warn (not fail) and know its scope.
  ValidateOptions options;
  options.cluster_scope = [](const opctl::model::GroupVersionKind&) -> std::optional<bool> {
    return std::nullopt;
  };
  options.known_crds.push_back(opctl::model::Json::parse(R"({"apiVersion": "apiextensions.k8s.io/v1",
      "kind": "CustomResourceDefinition", "metadata": {"name": "clusters.opctl.io"},
      "spec": {"group": "opctl.io", "scope": "Namespaced", "names": {"kind": "Cluster", "plural": "clusters"}}})"));
  auto report = validate_objects(
      testing::objects_from("apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata: {name: db}\n"), options);
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].severity == Finding::Severity::warning);
  CHECK(report.findings[0].problem.message.starts_with(
      "the cluster does not serve kind \"Cluster\" in apiVersion \"opctl.io/v1alpha1\" yet: install opctl's "
      "CRDs"));
  CHECK(report.valid());
}

namespace {

// Flags every object of one kind, to show where a custom kind's rules plug in.
class NoGadgetsNamedBad : public opctl::validate::KindValidator {
 public:
  bool handles(const opctl::model::GroupVersionKind& gvk) const override { return gvk.kind == "Gadget"; }
  std::vector<Finding> validate(const opctl::model::Object& object,
                                const opctl::validate::DesiredIndex& desired) const override {
    if (object.name() != "bad") return {};
    return {{Finding::Severity::error,
             opctl::Problem{
                 object.location().file, object.line_of("/metadata/name"), "metadata.name",
                 "no gadget may be called bad (" + std::to_string(desired.objects().size()) + " objects)"},
             ""}};
  }
};

}  // namespace

TEST_CASE("a kind validator's findings join the report with the object named", "[validate]") {
  NoGadgetsNamedBad validator;
  ValidateOptions options;
  options.kind_validators.push_back(&validator);
  auto report = validate_objects(testing::objects_from("apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n"
                                                       "  name: bad\n  namespace: shop\n"),
                                 options);
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].problem.to_string() ==
        "test.yaml:4: metadata.name: no gadget may be called bad (1 objects)");
  CHECK(report.findings[0].object == "example.com/Gadget shop/bad");
}

TEST_CASE("custom resources are checked against their CRD in the set, even offline", "[validate][schema]") {
  auto report = offline(R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [size]
              properties:
                size: {type: integer, minimum: 1}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: shop, labels: {a: b}}
spec:
  size: 0
  colour: red
)");
  CHECK(lines_of(report) == std::vector<std::string>{
                                "error: test.yaml:26: spec.size: 0 is less than the minimum 1",
                                "error: test.yaml:27: spec.colour: unknown field",
                            });
}

TEST_CASE("validating in place reports what a copy reports and defaults namespaces in the objects",
          "[validate]") {
  const std::string yaml = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: web
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  namespace: other
)";
  ValidateOptions options;
  options.default_namespace = "shop";
  auto objects = testing::objects_from(yaml);
  auto copied = validate_objects(objects, options);
  CHECK(objects[0].namespace_name().empty());  // the copy was defaulted, not these
  auto in_place = opctl::validate::validate_in_place(objects, options);
  REQUIRE(copied.findings.size() == 1);  // the Namespace's namespace
  CHECK(lines_of(in_place) == lines_of(copied));
  CHECK(in_place.objects == copied.objects);
  CHECK(objects[0].namespace_name() == "shop");
}

namespace {

// An API server whose OpenAPI documents for example.com/v1 and apps/v1 are
// being rebuilt: every read of the index hands out a new hash, and every
// document URL is stale by the time it is read (301). With `publishes`
// false, example.com/v1 is not in the index at all (its CRD was just created).
class RebuildingApiServer : public opctl::kube::HttpTransport {
 public:
  bool publishes = true;
  std::vector<std::string> paths;

  std::vector<opctl::kube::HttpResponse> send_all(
      const std::vector<opctl::kube::HttpRequest>& requests) override {
    std::vector<opctl::kube::HttpResponse> responses;
    for (const auto& request : requests) {
      paths.push_back(request.path);
      if (request.path != "/openapi/v3") {
        responses.push_back({301, "", "", 1});
        continue;
      }
      std::string hash = std::to_string(++index_reads_);
      opctl::model::Json index = {
          {"paths", {{"apis/apps/v1", {{"serverRelativeURL", "/openapi/v3/apis/apps/v1?hash=" + hash}}}}}};
      if (publishes)
        index["paths"]["apis/example.com/v1"] = {
            {"serverRelativeURL", "/openapi/v3/apis/example.com/v1?hash=" + hash}};
      responses.push_back({200, index.dump(), "", 1});
    }
    return responses;
  }

 private:
  int index_reads_ = 0;
};

// The cluster's CRD of example.com's Widget: spec.size is required and at least 1.
std::optional<opctl::model::Json> live_widget_crd(const opctl::model::GroupVersionKind& gvk) {
  if (gvk.group != "example.com" || gvk.kind != "Widget") return std::nullopt;
  return opctl::model::Json::parse(R"({"apiVersion": "apiextensions.k8s.io/v1",
      "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.com"},
      "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"},
        "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
          "type": "object", "properties": {"spec": {"type": "object", "required": ["size"],
            "properties": {"size": {"type": "integer", "minimum": 1},
                           "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}}}]}})");
}

struct ClusterFixture {
  RebuildingApiServer server;
  opctl::validate::ClusterSchemaSource schemas{server, "", [](std::chrono::milliseconds) {}};
  std::vector<opctl::model::GroupVersionKind> crds_asked;
  ValidateOptions options;

  ClusterFixture() {
    options.schemas = &schemas;
    options.cluster_scope = [](const opctl::model::GroupVersionKind&) -> std::optional<bool> { return true; };
    options.live_crd = [this](const opctl::model::GroupVersionKind& gvk) {
      crds_asked.push_back(gvk);
      return live_widget_crd(gvk);
    };
  }
};

const std::string k_widgets = R"(apiVersion: example.com/v1
kind: Widget
metadata: {name: good, namespace: shop, labels: {app: shop}, annotations: {note: x}}
spec:
  size: 2
  extra: {anything: [1, 2]}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: bad, namespace: shop}
spec:
  size: 0
  colour: red
)";

}  // namespace

TEST_CASE(
    "custom resources whose group's document never settles are checked against their CRD on the cluster",
    "[validate][schema][crd-fallback]") {
  // Given a document that keeps changing for as long as the source waits, we should check the Widgets against
  // the cluster's CRD: the good one passes (metadata included), the bad one is refused, and a warning names
  // the group-version.
  ClusterFixture cluster;
  auto report = validate_objects(testing::objects_from(k_widgets), cluster.options);
  CHECK(
      lines_of(report) ==
      std::vector<std::string>{
          "warning: the cluster's OpenAPI document for example.com/v1 did not settle (GET "
          "/openapi/v3/apis/example.com/v1: the document changed 8 times in 15 s while it was read (a CRD of "
          "its group keeps changing?)); its custom resources were checked against their "
          "CustomResourceDefinitions' own schemas instead",
          "error: test.yaml:12: spec.size: 0 is less than the minimum 1",
          "error: test.yaml:13: spec.colour: unknown field",
      });
  CHECK(cluster.crds_asked == std::vector<opctl::model::GroupVersionKind>{{"example.com", "v1", "Widget"}});
  CHECK(report.findings[0].object.empty());
}

TEST_CASE("custom resources whose group has no published document yet are checked against their CRD",
          "[validate][schema][crd-fallback]") {
  // Given a CRD created a moment ago (no document in the index), we should check against it, say so in a
  // note, and not warn: nothing is wrong with the cluster.
  ClusterFixture cluster;
  cluster.server.publishes = false;
  auto report = validate_objects(testing::objects_from(k_widgets), cluster.options);
  CHECK(lines_of(report) == std::vector<std::string>{
                                "error: test.yaml:12: spec.size: 0 is less than the minimum 1",
                                "error: test.yaml:13: spec.colour: unknown field",
                            });
  CHECK(report.notes ==
        std::vector<std::string>{
            "no schema for apiVersion example.com/v1 (the cluster serves no OpenAPI document for "
            "it): 2 objects checked against their CustomResourceDefinition's own schema instead"});
}

TEST_CASE("a built-in group whose document never settles is a cluster error naming it",
          "[validate][schema][crd-fallback]") {
  // Given apps/v1 keeps moving, we should fail as before: no CRD holds a Deployment's schema.
  ClusterFixture cluster;
  CHECK_THROWS_WITH(
      validate_objects(testing::objects_from("apiVersion: apps/v1\nkind: Deployment\n"
                                             "metadata: {name: web, namespace: shop}\n"),
                       cluster.options),
      "GET /openapi/v3/apis/apps/v1: the document changed 8 times in 15 s while it was read (a CRD "
      "of its group keeps changing?)");
  CHECK(cluster.crds_asked == std::vector<opctl::model::GroupVersionKind>{{"apps", "v1", "Deployment"}});
}

TEST_CASE("without a CRD lookup a document that never settles stays a cluster error",
          "[validate][schema][crd-fallback]") {
  ClusterFixture cluster;
  cluster.options.live_crd = nullptr;
  CHECK_THROWS_AS(validate_objects(testing::objects_from(k_widgets), cluster.options), opctl::ClusterError);
}

TEST_CASE("the set's CRD wins, and its group's document is not even read",
          "[validate][schema][crd-fallback]") {
  // Given the set holds the Widget CRD (without the minimum), we should check against it, never ask for the
  // moving document of example.com/v1 nor for the cluster's CRD.
  ClusterFixture cluster;
  auto report = validate_objects(testing::objects_from(R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
                extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
)" + k_widgets),
                                 cluster.options);
  CHECK(lines_of(report) == std::vector<std::string>{"error: test.yaml:34: spec.colour: unknown field"});
  for (const auto& gvk : cluster.crds_asked)
    CHECK(gvk.kind != "Widget");
  for (const auto& path : cluster.server.paths)
    CHECK(path.find("example.com") == std::string::npos);
}
