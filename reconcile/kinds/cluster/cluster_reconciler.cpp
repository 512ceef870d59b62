#include "kinds/cluster/cluster_reconciler.hpp"

#include <fmt/format.h>

#include <set>

#include "kinds/cluster/backup_contract.hpp"
#include "kinds/cluster/cluster_crd.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"
#include "kinds/cluster/cluster_spec.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::GroupVersionKind;
using model::Json;

bool has_finalizer(const Json& parent, const std::string& name) {
  for (const auto& finalizer : parent.value("/metadata/finalizers"_json_pointer, Json::array()))
    if (finalizer == name) return true;
  return false;
}

// A spec the pass cannot act on: change nothing, keep what status knew, say why.
ReconcileResult invalid_spec(const Observed& observed, const std::vector<schema::Issue>& issues) {
  std::vector<std::string> lines;
  for (const auto& issue : issues)
    lines.push_back(issue.field + ": " + issue.message);
  std::string message = fmt::format("{}", fmt::join(lines, "; "));
  ReconcileResult result;
  result.keep_unlisted = true;
  result.status = observed.parent.value("status", Json::object());
  result.status.erase("conditions");
  result.status.erase("observedGeneration");
  result.status["phase"] = "Invalid";
  result.status["phaseReason"] = message;
  if (has_finalizer(observed.parent, k_final_backup_finalizer))
    result.finalizers = {k_final_backup_finalizer};
  result.conditions = {{"Ready", false, "InvalidSpec", message},
                       {"Progressing", false, "InvalidSpec", ""},
                       {"Degraded", true, "InvalidSpec", message}};
  return result;
}

class ClusterReconciler : public KindReconciler {
 public:
  explicit ClusterReconciler(std::string default_image) : default_image_(std::move(default_image)) {}

  GroupVersionKind kind() const override { return {k_group, k_version, "Cluster"}; }

  std::vector<GroupVersionKind> child_kinds() const override {
    return {{"", "v1", "Pod"},
            {"", "v1", "PersistentVolumeClaim"},
            {"", "v1", "Service"},
            {"", "v1", "Secret"},
            {"", "v1", "ServiceAccount"},
            {"rbac.authorization.k8s.io", "v1", "Role"},
            {"rbac.authorization.k8s.io", "v1", "RoleBinding"},
            {"batch", "v1", "Job"},
            {"policy", "v1", "PodDisruptionBudget"},
            {"coordination.k8s.io", "v1", "Lease"}};
  }

  // A failed instance Pod it deletes (failed_pods.cpp).
  bool records_events() const override { return true; }

  std::vector<RelatedRef> related(const Json& parent) const override {
    if (!check_cluster(parent).empty()) return {};
    ClusterSpec spec = parse_cluster_spec(parent, default_image_);
    std::vector<RelatedRef> refs;
    for (const auto& name : {spec.recovery_backup, spec.final_backup, spec.wal_archive_backup})
      if (!name.empty()) refs.push_back({backup_kind(), spec.namespace_name, name});
    // Read to report a missing one (the CustomQueriesMissing condition); the instances mount them.
    std::set<std::string> config_maps;
    for (const auto& reference : spec.monitoring.custom_queries)
      if (config_maps.insert(reference.name).second)
        refs.push_back({{"", "v1", "ConfigMap"}, spec.namespace_name, reference.name});
    // A user-given server certificate and its CA: checked by the pass, served by the instances.
    for (const auto& name : {spec.certificates.server_tls_secret, spec.certificates.server_ca_secret})
      if (!name.empty()) refs.push_back({{"", "v1", "Secret"}, spec.namespace_name, name});
    return refs;
  }

  ReconcileResult reconcile(const Observed& observed, Context& context) override {
    auto issues = check_cluster(observed.parent);
    if (auto issue = default_image_issue(observed.parent, default_image_)) issues.push_back(*issue);
    if (!issues.empty()) return invalid_spec(observed, issues);
    ClusterSpec spec = parse_cluster_spec(observed.parent, default_image_);
    return ClusterPass(spec, observed, context).run();
  }

  std::vector<Problem> validate(const model::Object& object) const override {
    std::vector<Problem> problems;
    auto issues = check_cluster(object.body());
    if (auto issue = default_image_issue(object.body(), default_image_)) issues.push_back(*issue);
    for (const auto& issue : issues)
      problems.push_back({object.location().file, object.line_of(issue.pointer), issue.field, issue.message});
    return problems;
  }

  SetFindings check_in_set(const model::Object& object, const std::vector<model::Object>&) const override {
    SetFindings findings;
    if (auto advice = default_image_advice(object.body(), default_image_))
      findings.warnings.push_back(
          {object.location().file, object.line_of(advice->pointer), advice->field, advice->message});
    return findings;
  }

  Json custom_resource_definition() const override { return cluster_crd(); }

 private:
  std::string default_image_;  // the site default; empty: none
};

}  // namespace

std::unique_ptr<KindReconciler> make_cluster_reconciler(const std::string& default_image) {
  return std::make_unique<ClusterReconciler>(default_image);
}

}  // namespace opctl::kinds::cluster
