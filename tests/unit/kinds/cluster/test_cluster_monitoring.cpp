#include <algorithm>
#include <catch2/catch.hpp>

#include "cluster_world.hpp"
#include "kinds/cluster/cluster_children.hpp"
#include "kinds/cluster/cluster_spec.hpp"

using cluster_test::small_cluster;
using cluster_test::small_cluster_primary_pod;
using namespace opctl::kinds::cluster;
using opctl::model::Json;

namespace {

std::vector<std::string> monitoring_issues(const Json& extra) {
  std::vector<std::string> out;
  for (const auto& issue : check_cluster(small_cluster(extra)))
    out.push_back(issue.field + ": " + issue.message);
  return out;
}

bool has_element(const Json& array, const Json& element) {
  return std::find(array.begin(), array.end(), element) != array.end();
}

const Json* env_named(const Json& container, const std::string& name) {
  for (const auto& variable : container["env"])
    if (variable["name"] == name) return &variable;
  return nullptr;
}

}  // namespace

TEST_CASE("every instance declares the exporter's port, named metrics, and has no liveness or startup probe",
          "[cluster][monitoring]") {
  // Given a Cluster without monitoring or probe settings, its container should have the port and nothing else
  // new.
  Json container = small_cluster_primary_pod(Json::object())["spec"]["containers"][0];
  CHECK(has_element(container["ports"],
                    Json{{"name", "metrics"}, {"containerPort", 9187}, {"protocol", "TCP"}}));
  CHECK_FALSE(container.contains("livenessProbe"));
  CHECK_FALSE(container.contains("startupProbe"));
  CHECK(env_named(container, "OPCTL_METRICS_QUERIES_DIR") == nullptr);
}

TEST_CASE("custom queries ConfigMaps are mounted, optional, one file per reference",
          "[cluster][monitoring]") {
  Json pod = small_cluster_primary_pod(Json::parse(R"({"monitoring": {"customQueriesConfigMap": [
    {"name": "queries", "key": "custom.yaml"}, {"name": "queries", "key": "more.yaml"}]}})"));
  const Json& container = pod["spec"]["containers"][0];
  REQUIRE(env_named(container, "OPCTL_METRICS_QUERIES_DIR") != nullptr);
  CHECK((*env_named(container, "OPCTL_METRICS_QUERIES_DIR"))["value"] == "/etc/opctl/queries");
  CHECK(
      has_element(container["volumeMounts"],
                  Json{{"name", "custom-queries"}, {"mountPath", "/etc/opctl/queries"}, {"readOnly", true}}));
  Json volume;
  for (const auto& candidate : pod["spec"]["volumes"])
    if (candidate["name"] == "custom-queries") volume = candidate;
  CHECK(volume["projected"]["sources"] == Json::parse(R"([
    {"configMap": {"name": "queries", "optional": true, "items": [{"key": "custom.yaml", "path": "00-queries-custom.yaml.yaml"}]}},
    {"configMap": {"name": "queries", "optional": true, "items": [{"key": "more.yaml", "path": "01-queries-more.yaml.yaml"}]}}])"));
}

TEST_CASE("custom queries references change the Pods' hash only when set", "[cluster][monitoring]") {
  ClusterSpec plain = parse_cluster_spec(small_cluster(Json::object()));
  ClusterSpec monitored = parse_cluster_spec(small_cluster(
      Json::parse(R"({"monitoring": {"customQueriesConfigMap": [{"name": "queries", "key": "q"}]}})")));
  ClusterSpec empty_list =
      parse_cluster_spec(small_cluster(Json::parse(R"({"monitoring": {"customQueriesConfigMap": []}})")));
  CHECK(pod_template(plain, plain.image_name).hash != pod_template(monitored, monitored.image_name).hash);
  CHECK(pod_template(plain, plain.image_name).hash == pod_template(empty_list, empty_list.image_name).hash);
}

TEST_CASE("a bad ConfigMap reference is refused with its field", "[cluster][monitoring]") {
  CHECK(monitoring_issues(
            Json::parse(R"({"monitoring": {"customQueriesConfigMap": [{"name": "queries"}]}})")) ==
        std::vector<std::string>{"spec.monitoring.customQueriesConfigMap[0].key: missing required field"});
  auto bad_name = monitoring_issues(
      Json::parse(R"({"monitoring": {"customQueriesConfigMap": [{"name": "Queries_1", "key": "q"}]}})"));
  REQUIRE(bad_name.size() == 1);
  CHECK_THAT(bad_name[0], Catch::Matchers::StartsWith("spec.monitoring.customQueriesConfigMap[0].name"));
  auto bad_key = monitoring_issues(
      Json::parse(R"({"monitoring": {"customQueriesConfigMap": [{"name": "queries", "key": "a/b"}]}})"));
  REQUIRE(bad_key.size() == 1);
  CHECK_THAT(bad_key[0], Catch::Matchers::StartsWith("spec.monitoring.customQueriesConfigMap[0].key"));
  auto twice = monitoring_issues(Json::parse(
      R"({"monitoring": {"customQueriesConfigMap": [{"name": "q", "key": "k"}, {"name": "q", "key": "k"}]}})"));
  REQUIRE(twice.size() == 1);
  CHECK_THAT(twice[0], Catch::Matchers::Contains("named twice"));
  CHECK_FALSE(monitoring_issues(Json::parse(R"({"monitoring": {"enablePodMonitor": true}})")).empty());
}

TEST_CASE("liveness and startup probes: on the Pod when set, with CloudNativePG's defaults",
          "[cluster][monitoring]") {
  Json container = small_cluster_primary_pod(Json::parse(
      R"({"probes": {"liveness": {}, "startup": {"failureThreshold": 60}}})"))["spec"]["containers"][0];
  CHECK(container["livenessProbe"] == Json::parse(R"({"httpGet": {"path": "/healthz", "port": "metrics"},
    "periodSeconds": 10, "timeoutSeconds": 5, "failureThreshold": 3})"));
  CHECK(container["startupProbe"] == Json::parse(R"({"httpGet": {"path": "/healthz", "port": "metrics"},
    "periodSeconds": 10, "timeoutSeconds": 5, "failureThreshold": 60})"));
  ClusterSpec plain = parse_cluster_spec(small_cluster(Json::object()));
  ClusterSpec probed = parse_cluster_spec(small_cluster(Json::parse(R"({"probes": {"liveness": {}}})")));
  CHECK(pod_template(plain, plain.image_name).hash != pod_template(probed, probed.image_name).hash);
}

TEST_CASE("a liveness or startup probe's successThreshold must be 1", "[cluster][monitoring]") {
  auto issues = monitoring_issues(Json::parse(R"({"probes": {"liveness": {"successThreshold": 2},
    "startup": {"periodSeconds": 0}}})"));
  REQUIRE(issues.size() == 2);
  CHECK_THAT(issues[0] + issues[1], Catch::Matchers::Contains("spec.probes.liveness.successThreshold"));
  CHECK_THAT(issues[0] + issues[1], Catch::Matchers::Contains("spec.probes.startup.periodSeconds"));
}

TEST_CASE("a missing custom queries ConfigMap or key is named; present ones are not",
          "[cluster][monitoring]") {
  MonitoringSpec monitoring{{{"queries", "custom.yaml"}, {"queries", "gone.yaml"}, {"absent", "q"}}};
  std::vector<Json> related = {
      Json::parse(
          R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "queries", "namespace": "shop"},
        "data": {"custom.yaml": "x: 1"}})"),
      Json::parse(R"({"apiVersion": "opctl.io/v1alpha1", "kind": "Backup", "metadata": {"name": "absent",
        "namespace": "shop"}})")};
  CHECK(missing_custom_queries(monitoring, "shop", related) ==
        "ConfigMap queries has no key gone.yaml; ConfigMap absent does not exist");
  CHECK(missing_custom_queries(MonitoringSpec{{{"queries", "custom.yaml"}}}, "shop", related).empty());
}
