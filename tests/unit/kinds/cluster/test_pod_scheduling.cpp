#include <catch2/catch.hpp>

#include "cluster_world.hpp"
#include "kinds/cluster/cluster_children.hpp"
#include "kinds/cluster/cluster_jobs.hpp"
#include "kinds/cluster/cluster_spec.hpp"

using cluster_test::small_cluster;
using cluster_test::small_cluster_primary_pod;
using namespace opctl::kinds::cluster;
using opctl::model::Json;

namespace {

std::vector<std::string> scheduling_fields(const Json& extra) {
  std::vector<std::string> out;
  for (const auto& issue : check_cluster(small_cluster(extra)))
    out.push_back(issue.field);
  return out;
}

}  // namespace

TEST_CASE("without scheduling settings a Pod is what it was: preferred anti-affinity by host, the old probe",
          "[cluster][scheduling]") {
  // Given a Cluster that sets none of the new fields, its Pods and their hash should not change.
  Json pod = small_cluster_primary_pod(Json::object());
  const Json& spec = pod["spec"];
  CHECK(spec["affinity"] ==
        Json::parse(R"({"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,
          "podAffinityTerm":{"labelSelector":{"matchLabels":{"opctl.io/cluster":"db"}},
          "topologyKey":"kubernetes.io/hostname"}}]}})"));
  CHECK(spec["containers"][0]["readinessProbe"] ==
        Json::parse(R"({"exec":{"command":["opctl","instance","ready"]},"periodSeconds":2,"timeoutSeconds":5,
          "failureThreshold":1})"));
  for (const char* absent : {"nodeSelector", "tolerations", "topologySpreadConstraints", "priorityClassName"})
    CHECK_FALSE(spec.contains(absent));
  ClusterSpec parsed = parse_cluster_spec(small_cluster(Json::object()));
  CHECK(pod_template(parsed, parsed.image_name).hash == "1fe96b79e6f940a5");
}

TEST_CASE("affinity, tolerations, spread, priority and probe timings reach the Pod",
          "[cluster][scheduling]") {
  Json pod = small_cluster_primary_pod(Json::parse(R"({
    "affinity": {"podAntiAffinityType": "required", "topologyKey": "topology.kubernetes.io/zone",
                 "nodeSelector": {"disk": "ssd"},
                 "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "pg", "effect": "NoSchedule"}],
                 "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                   {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["db"]}]}]}}},
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
    "priorityClassName": "databases",
    "probes": {"readiness": {"periodSeconds": 10, "failureThreshold": 3, "initialDelaySeconds": 5}}})"));
  const Json& spec = pod["spec"];
  const Json& anti = spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  REQUIRE(anti.size() == 1);
  CHECK(anti[0]["topologyKey"] == "topology.kubernetes.io/zone");
  CHECK(spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"].is_object());
  CHECK(spec["nodeSelector"] == Json{{"disk", "ssd"}});
  CHECK(spec["tolerations"][0]["key"] == "dedicated");
  CHECK(spec["priorityClassName"] == "databases");
  // Without labelSelector, a constraint spreads this Cluster's instances.
  CHECK(spec["topologySpreadConstraints"][0]["labelSelector"] ==
        Json{{"matchLabels", {{"opctl.io/cluster", "db"}}}});
  const Json& probe = spec["containers"][0]["readinessProbe"];
  CHECK(probe["periodSeconds"] == 10);
  CHECK(probe["failureThreshold"] == 3);
  CHECK(probe["initialDelaySeconds"] == 5);
  CHECK(probe["timeoutSeconds"] == 5);
}

TEST_CASE("changing where instances may run changes the Pod spec hash, so they roll",
          "[cluster][scheduling]") {
  ClusterSpec plain = parse_cluster_spec(small_cluster(Json::object()));
  ClusterSpec moved =
      parse_cluster_spec(small_cluster({{"affinity", {{"nodeSelector", {{"disk", "ssd"}}}}}}));
  ClusterSpec off = parse_cluster_spec(small_cluster({{"affinity", {{"enablePodAntiAffinity", false}}}}));
  CHECK(pod_template(plain, plain.image_name).hash != pod_template(moved, moved.image_name).hash);
  CHECK(pod_template(plain, plain.image_name).hash != pod_template(off, off.image_name).hash);
  CHECK_FALSE(small_cluster_primary_pod({{"affinity", {{"enablePodAntiAffinity", false}}}})["spec"].contains(
      "affinity"));
}

TEST_CASE("additional pod affinity and anti-affinity terms join the generated ones",
          "[cluster][scheduling]") {
  Json pod = small_cluster_primary_pod(Json::parse(R"({"affinity": {
    "additionalPodAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50,
      "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "batch"}}, "topologyKey": "zone"}}]},
    "additionalPodAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "shop"}}, "topologyKey": "zone"}]}}})"));
  const Json& affinity = pod["spec"]["affinity"];
  const Json& preferred = affinity["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"];
  REQUIRE(preferred.size() == 2);
  CHECK(preferred[0]["weight"] == 100);  // the Cluster's own, first
  CHECK(preferred[1]["weight"] == 50);
  CHECK(affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["topologyKey"] ==
        "zone");
}

TEST_CASE("the Cluster's Jobs run where its instances may, with its resources", "[cluster][scheduling]") {
  ClusterSpec spec = parse_cluster_spec(small_cluster(Json::parse(R"({
    "resources": {"requests": {"cpu": "100m"}},
    "affinity": {"nodeSelector": {"disk": "ssd"}, "tolerations": [{"operator": "Exists"}]},
    "priorityClassName": "databases"})")));
  Json job = build_major_upgrade_job(spec, MajorUpgradeStatus{"a:15", "a:17", 15, 17, "db-1", "", ""});
  const Json& pod = job["spec"]["template"]["spec"];
  CHECK(pod["nodeSelector"] == Json{{"disk", "ssd"}});
  CHECK(pod["tolerations"].size() == 1);
  CHECK(pod["priorityClassName"] == "databases");
  CHECK_FALSE(pod.contains("affinity"));  // no anti-affinity: it must run where the volume is
  CHECK(pod["containers"][0]["resources"]["requests"]["cpu"] == "100m");
  CHECK(pod["initContainers"][0]["resources"]["requests"]["cpu"] == "100m");
}

TEST_CASE("scheduling fields are checked offline", "[cluster][scheduling]") {
  CHECK(scheduling_fields({{"affinity", {{"podAntiAffinityType", "always"}}}}) ==
        std::vector<std::string>{"spec.affinity.podAntiAffinityType"});
  CHECK(scheduling_fields({{"affinity", {{"tolerations", {{{"operator", "Maybe"}}}}}}}) ==
        std::vector<std::string>{"spec.affinity.tolerations[0].operator"});
  CHECK(scheduling_fields({{"affinity", {{"nodeSelector", {{"disk", 1}}}}}}) ==
        std::vector<std::string>{"spec.affinity.nodeSelector.disk"});
  CHECK(scheduling_fields({{"topologySpreadConstraints", {{{"maxSkew", 1}}}}}) ==
        std::vector<std::string>{"spec.topologySpreadConstraints[0].topologyKey",
                                 "spec.topologySpreadConstraints[0].whenUnsatisfiable"});
  CHECK(scheduling_fields({{"probes", {{"readiness", {{"periodSeconds", 0}}}}}}) ==
        std::vector<std::string>{"spec.probes.readiness.periodSeconds"});
}
