#include "kinds/cluster/cluster_reconciler.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// A role's passwordSecret that the set does not hold: fine when something else
// makes it (a secrets operator), but a typo would leave the role without its
// password until fixed (reported as cannotReconcile), so validate says so.
std::vector<Problem> missing_password_secrets(const model::Object& object,
                                              const std::vector<model::Object>& desired) {
  std::vector<Problem> warnings;
  Json::json_pointer at("/spec/managed/roles");
  if (!object.body().contains(at) || !object.body()[at].is_array()) return warnings;
  const Json& roles = object.body()[at];
  Json::json_pointer name_at("/passwordSecret/name");
  std::string namespace_name = object.namespace_name();
  // As validate's other references: a set without any Secret manages its Secrets elsewhere.
  auto is_secret = [](const model::Object& other) {
    return other.gvk().group.empty() && other.kind() == "Secret";
  };
  if (std::none_of(desired.begin(), desired.end(), is_secret)) return warnings;
  for (std::size_t i = 0; i < roles.size(); ++i) {
    if (!roles[i].is_object() || !roles[i].contains(name_at) || !roles[i][name_at].is_string()) continue;
    std::string secret = roles[i][name_at].get<std::string>();
    bool found = std::any_of(desired.begin(), desired.end(), [&](const model::Object& other) {
      return is_secret(other) && other.name() == secret &&
             (other.namespace_name().empty() || namespace_name.empty() ||
              other.namespace_name() == namespace_name);
    });
    if (found) continue;
    std::string pointer = fmt::format("/spec/managed/roles/{}/passwordSecret/name", i);
    warnings.push_back(
        {object.location().file, object.line_of(pointer),
         fmt::format("spec.managed.roles[{}].passwordSecret.name", i),
         fmt::format("Secret \"{}\" is not in the manifests: the role gets its password once the "
                     "Secret exists{} (until then it is reported as cannotReconcile)",
                     secret, namespace_name.empty() ? "" : " in namespace " + namespace_name)});
  }
  return warnings;
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

  SetFindings check_in_set(const model::Object& object,
                           const std::vector<model::Object>& desired) const override {
    SetFindings findings;
    findings.warnings = missing_password_secrets(object, desired);
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
