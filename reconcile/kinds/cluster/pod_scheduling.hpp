// Where a Cluster's Pods may run, and how the kubelet probes them:
// spec.affinity, spec.topologySpreadConstraints, spec.priorityClassName and
// spec.probes, with the field names CloudNativePG uses. The schema, the
// parsed form with its defaults, and the parts of a Pod spec they render.
#pragma once

#include <optional>
#include <string>

#include "kinds/schema/schema.hpp"
#include "model/object.hpp"

namespace opctl::kinds::cluster {

struct ProbeTimings {
  int initial_delay_seconds = 0;
  int period_seconds = 2;
  int timeout_seconds = 5;
  int success_threshold = 1;
  int failure_threshold = 1;
  bool operator==(const ProbeTimings&) const = default;
};

// The defaults of spec.probes.liveness and spec.probes.startup when they are
// set (CloudNativePG's: a startup allowance of an hour, as its startDelay).
inline constexpr ProbeTimings k_liveness_defaults{0, 10, 5, 1, 3};
inline constexpr ProbeTimings k_startup_defaults{0, 10, 5, 1, 360};

struct PodScheduling {
  bool enable_pod_anti_affinity = true;
  bool anti_affinity_required = false;  // podAntiAffinityType: required (else preferred)
  std::string topology_key = "kubernetes.io/hostname";
  model::Json node_selector = model::Json::object();
  model::Json tolerations = model::Json::array();
  model::Json node_affinity = model::Json::object();  // a core/v1 NodeAffinity
  // core/v1 PodAffinity and PodAntiAffinity terms added to the generated ones.
  model::Json additional_pod_affinity = model::Json::object();
  model::Json additional_pod_anti_affinity = model::Json::object();
  model::Json topology_spread_constraints = model::Json::array();
  std::string priority_class_name;
  ProbeTimings readiness;
  // Absent (the default): no such probe, as before these settings existed.
  std::optional<ProbeTimings> liveness;
  std::optional<ProbeTimings> startup;

  // What a Pod of these settings differs in from one of the defaults, for the
  // Pod spec hash: empty for the defaults, so Clusters that set none keep theirs.
  model::Json hash_inputs() const;
};

// From a Cluster resource's spec (absent fields: defaults).
PodScheduling pod_scheduling(const model::Json& spec);

schema::Schema affinity_schema();
schema::Schema topology_spread_schema();
schema::Schema probes_schema();

// Into an instance Pod's spec: affinity (pod anti-affinity between the
// Cluster's instances, node affinity), nodeSelector, tolerations,
// topologySpreadConstraints (labelSelector defaults to the Cluster's
// instances) and priorityClassName. `cluster_labels` selects the instances.
void apply_scheduling(const PodScheduling& scheduling, const model::Json& cluster_labels,
                      model::Json& pod_spec);
// Into a Job's Pod spec (restore, upgrade, final backup): what lets it run
// where the instances may (node selector, node affinity, tolerations,
// priority), not the anti-affinity between instances.
void apply_node_placement(const PodScheduling& scheduling, model::Json& pod_spec);

model::Json readiness_probe(const ProbeTimings& timings);
// The liveness or startup probe: GET /healthz on the port named metrics, which
// the instance manager's exporter answers while the manager runs.
model::Json health_probe(const ProbeTimings& timings);

}  // namespace opctl::kinds::cluster
