#include "kinds/cluster/pod_scheduling.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;
using schema::Schema;

constexpr const char* k_default_topology_key = "kubernetes.io/hostname";

const Json& member(const Json& object, const char* key, const Json& fallback) {
  return object.is_object() && object.contains(key) && !object[key].is_null() ? object[key] : fallback;
}

// The member, or null when it is absent. The null is a constant that outlives the caller's
// reference: a temporary `Json()` as the fallback would be gone at the end of the statement.
const Json& member(const Json& object, const char* key) {
  static const Json absent;
  return member(object, key, absent);
}

int integer(const Json& object, const char* key, int fallback) {
  const Json& value = member(object, key);
  return value.is_number_integer() ? value.get<int>() : fallback;
}

// successThreshold: Kubernetes allows only 1 for liveness and startup probes.
Schema probe_schema(const ProbeTimings& defaults, const char* what, bool success_only_one = false) {
  auto success = Schema::integer().minimum(1).default_value(defaults.success_threshold);
  if (success_only_one) success.maximum(1);
  return Schema::object()
      .describe(what)
      .field("initialDelaySeconds",
             Schema::integer().minimum(0).default_value(defaults.initial_delay_seconds))
      .field("periodSeconds", Schema::integer().minimum(1).default_value(defaults.period_seconds))
      .field("timeoutSeconds", Schema::integer().minimum(1).default_value(defaults.timeout_seconds))
      .field("successThreshold", std::move(success))
      .field("failureThreshold", Schema::integer().minimum(1).default_value(defaults.failure_threshold));
}

ProbeTimings probe_timings(const Json& probe, ProbeTimings out = {}) {
  out.initial_delay_seconds = integer(probe, "initialDelaySeconds", out.initial_delay_seconds);
  out.period_seconds = integer(probe, "periodSeconds", out.period_seconds);
  out.timeout_seconds = integer(probe, "timeoutSeconds", out.timeout_seconds);
  out.success_threshold = integer(probe, "successThreshold", out.success_threshold);
  out.failure_threshold = integer(probe, "failureThreshold", out.failure_threshold);
  return out;
}

Json anti_affinity(const PodScheduling& scheduling, const Json& cluster_labels) {
  Json term = {{"labelSelector", {{"matchLabels", cluster_labels}}},
               {"topologyKey", scheduling.topology_key}};
  if (scheduling.anti_affinity_required)
    return {{"requiredDuringSchedulingIgnoredDuringExecution", Json::array({term})}};
  return {{"preferredDuringSchedulingIgnoredDuringExecution",
           Json::array({{{"weight", 100}, {"podAffinityTerm", term}}})}};
}

// Typed, so a misspelt operator or effect is found offline rather than by the API server at Pod creation.
Schema toleration_schema() {
  return Schema::object()
      .field("key", Schema::string())
      .field("operator", Schema::string().enumerate({"Exists", "Equal"}))
      .field("value", Schema::string())
      .field("effect", Schema::string().enumerate({"NoSchedule", "PreferNoSchedule", "NoExecute"}))
      .field("tolerationSeconds", Schema::integer());
}

}  // namespace

Json PodScheduling::hash_inputs() const {
  Json out = Json::object();
  if (!enable_pod_anti_affinity) out["podAntiAffinity"] = false;
  if (anti_affinity_required) out["podAntiAffinityType"] = "required";
  if (topology_key != k_default_topology_key) out["topologyKey"] = topology_key;
  if (!node_selector.empty()) out["nodeSelector"] = node_selector;
  if (!tolerations.empty()) out["tolerations"] = tolerations;
  if (!node_affinity.empty()) out["nodeAffinity"] = node_affinity;
  if (!additional_pod_affinity.empty()) out["additionalPodAffinity"] = additional_pod_affinity;
  if (!additional_pod_anti_affinity.empty()) out["additionalPodAntiAffinity"] = additional_pod_anti_affinity;
  if (!topology_spread_constraints.empty()) out["topologySpreadConstraints"] = topology_spread_constraints;
  if (!priority_class_name.empty()) out["priorityClassName"] = priority_class_name;
  if (readiness != ProbeTimings{}) out["readinessProbe"] = readiness_probe(readiness);
  if (liveness) out["livenessProbe"] = health_probe(*liveness);
  if (startup) out["startupProbe"] = health_probe(*startup);
  return out;
}

PodScheduling pod_scheduling(const Json& spec) {
  PodScheduling out;
  const Json empty = Json::object();
  const Json& affinity = member(spec, "affinity", empty);
  const Json& enable = member(affinity, "enablePodAntiAffinity");
  if (enable.is_boolean()) out.enable_pod_anti_affinity = enable.get<bool>();
  const Json& type = member(affinity, "podAntiAffinityType");
  out.anti_affinity_required = type.is_string() && type.get<std::string>() == "required";
  const Json& key = member(affinity, "topologyKey");
  if (key.is_string() && !key.get<std::string>().empty()) out.topology_key = key.get<std::string>();
  if (const Json& value = member(affinity, "nodeSelector"); value.is_object()) out.node_selector = value;
  if (const Json& value = member(affinity, "tolerations"); value.is_array()) out.tolerations = value;
  if (const Json& value = member(affinity, "nodeAffinity"); value.is_object()) out.node_affinity = value;
  if (const Json& value = member(affinity, "additionalPodAffinity"); value.is_object())
    out.additional_pod_affinity = value;
  if (const Json& value = member(affinity, "additionalPodAntiAffinity"); value.is_object())
    out.additional_pod_anti_affinity = value;
  if (const Json& value = member(spec, "topologySpreadConstraints"); value.is_array())
    out.topology_spread_constraints = value;
  if (const Json& value = member(spec, "priorityClassName"); value.is_string())
    out.priority_class_name = value.get<std::string>();
  const Json& probes = member(spec, "probes", empty);
  out.readiness = probe_timings(member(probes, "readiness", empty));
  if (const Json& value = member(probes, "liveness"); value.is_object())
    out.liveness = probe_timings(value, k_liveness_defaults);
  if (const Json& value = member(probes, "startup"); value.is_object())
    out.startup = probe_timings(value, k_startup_defaults);
  return out;
}

Schema affinity_schema() {
  return Schema::object()
      .describe("Where the instances may run (CloudNativePG's spec.affinity)")
      .field("enablePodAntiAffinity", Schema::boolean()
                                          .describe("keep the Cluster's instances apart, across topologyKey")
                                          .default_value(true))
      .field("podAntiAffinityType",
             Schema::string()
                 .describe("preferred: apart when possible; required: an instance stays Pending rather than "
                           "share a topologyKey domain with another")
                 .enumerate({"preferred", "required"})
                 .default_value("preferred"))
      .field("topologyKey", Schema::string()
                                .describe("the node label the anti-affinity spreads over, e.g. "
                                          "topology.kubernetes.io/zone")
                                .default_value(k_default_topology_key))
      .field("nodeSelector",
             Schema::map(Schema::string()).describe("node labels an instance's node must have"))
      .field("tolerations", Schema::array(toleration_schema())
                                .describe("core/v1 Tolerations of every instance and of the Cluster's Jobs"))
      .field("nodeAffinity",
             Schema::free_form().describe("a core/v1 NodeAffinity, added to every instance and Job"))
      .field(
          "additionalPodAffinity",
          Schema::free_form().describe("a core/v1 PodAffinity of the instances (e.g. near an application)"))
      .field("additionalPodAntiAffinity",
             Schema::free_form().describe(
                 "a core/v1 PodAntiAffinity whose terms are added to the generated one"));
}

Schema topology_spread_schema() {
  auto constraint =
      Schema::object()
          .describe(
              "a core/v1 TopologySpreadConstraint; without labelSelector it spreads the Cluster's "
              "instances")
          .field("maxSkew", Schema::integer().minimum(1), true)
          .field("topologyKey", Schema::string(), true)
          .field("whenUnsatisfiable", Schema::string().enumerate({"DoNotSchedule", "ScheduleAnyway"}), true)
          .field("labelSelector", Schema::free_form())
          .field("matchLabelKeys", Schema::array(Schema::string()))
          .field("minDomains", Schema::integer().minimum(1))
          .field("nodeAffinityPolicy", Schema::string().enumerate({"Honor", "Ignore"}))
          .field("nodeTaintsPolicy", Schema::string().enumerate({"Honor", "Ignore"}));
  return Schema::array(std::move(constraint)).describe("how the instances spread over zones or nodes");
}

Schema probes_schema() {
  return Schema::object()
      .describe("timings of the kubelet's probes of each instance")
      .field("readiness", probe_schema(ProbeTimings{},
                                       "the readiness probe (opctl instance ready: the instance serves its "
                                       "role); it takes an instance out of its Services"))
      .field("liveness",
             probe_schema(k_liveness_defaults,
                          "the liveness probe (GET /healthz on port metrics: the instance manager answers); "
                          "absent: none. The kubelet restarts the container after failureThreshold failures",
                          true))
      .field("startup", probe_schema(k_startup_defaults,
                                     "the startup probe (GET /healthz on port metrics); absent: none. "
                                     "Until it succeeds, the liveness probe waits; periodSeconds times "
                                     "failureThreshold is the time a start may take",
                                     true));
}

void apply_node_placement(const PodScheduling& scheduling, Json& pod_spec) {
  if (!scheduling.node_selector.empty()) pod_spec["nodeSelector"] = scheduling.node_selector;
  if (!scheduling.tolerations.empty()) pod_spec["tolerations"] = scheduling.tolerations;
  if (!scheduling.node_affinity.empty()) pod_spec["affinity"]["nodeAffinity"] = scheduling.node_affinity;
  if (!scheduling.priority_class_name.empty()) pod_spec["priorityClassName"] = scheduling.priority_class_name;
}

void apply_scheduling(const PodScheduling& scheduling, const Json& cluster_labels, Json& pod_spec) {
  apply_node_placement(scheduling, pod_spec);
  Json anti =
      scheduling.enable_pod_anti_affinity ? anti_affinity(scheduling, cluster_labels) : Json::object();
  // The user's terms go after the generated ones, in the same lists.
  for (const auto& [kind, terms] : scheduling.additional_pod_anti_affinity.items())
    if (terms.is_array())
      for (const auto& term : terms)
        anti[kind].push_back(term);
  if (!anti.empty()) pod_spec["affinity"]["podAntiAffinity"] = std::move(anti);
  if (!scheduling.additional_pod_affinity.empty())
    pod_spec["affinity"]["podAffinity"] = scheduling.additional_pod_affinity;
  if (scheduling.topology_spread_constraints.empty()) return;
  Json constraints = scheduling.topology_spread_constraints;
  for (auto& constraint : constraints)
    if (constraint.is_object() && !constraint.contains("labelSelector"))
      constraint["labelSelector"] = {{"matchLabels", cluster_labels}};
  pod_spec["topologySpreadConstraints"] = std::move(constraints);
}

Json readiness_probe(const ProbeTimings& timings) {
  Json probe = {{"exec", {{"command", Json::array({"opctl", "instance", "ready"})}}},
                {"periodSeconds", timings.period_seconds},
                {"timeoutSeconds", timings.timeout_seconds},
                {"failureThreshold", timings.failure_threshold}};
  // Only when set: the Pods of Clusters that set nothing stay as they were.
  if (timings.initial_delay_seconds != 0) probe["initialDelaySeconds"] = timings.initial_delay_seconds;
  if (timings.success_threshold != 1) probe["successThreshold"] = timings.success_threshold;
  return probe;
}

Json health_probe(const ProbeTimings& timings) {
  Json probe = {{"httpGet", {{"path", "/healthz"}, {"port", "metrics"}}},
                {"periodSeconds", timings.period_seconds},
                {"timeoutSeconds", timings.timeout_seconds},
                {"failureThreshold", timings.failure_threshold}};
  if (timings.initial_delay_seconds != 0) probe["initialDelaySeconds"] = timings.initial_delay_seconds;
  return probe;
}

}  // namespace opctl::kinds::cluster
