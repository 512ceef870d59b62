#include "plan/kind_scopes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>

#include "model/error.hpp"

namespace opctl::plan {
namespace {

using model::Json;

// The string at `path` below `value`; "" where the shape is not a CRD's (an
// invalid CRD is the schema check's to report, not a reason to throw here).
std::string text_at(const Json& value, std::initializer_list<const char*> path) {
  const Json* at = &value;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return "";
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

std::vector<std::string> version_names(const Json& crd) {
  std::vector<std::string> names;
  if (!crd.contains("spec") || !crd["spec"].is_object()) return names;
  const Json& versions = crd["spec"].value("versions", Json::array());
  if (!versions.is_array()) return names;
  for (const auto& version : versions) {
    // A version with served: false is refused by the API server like one that is not listed.
    if (version.is_object() && version.contains("served") && version["served"] == false) continue;
    if (auto name = text_at(version, {"name"}); !name.empty()) names.push_back(name);
  }
  return names;
}

}  // namespace

bool is_crd(const model::GroupVersionKind& gvk) {
  return gvk.group == k_crd_group && gvk.kind == k_crd_kind;
}

std::optional<bool> builtin_namespaced(const GroupKind& kind) {
  constexpr bool namespaced = true;
  constexpr bool cluster = false;
  static const std::map<GroupKind, bool> scopes = {
      {{"", "Binding"}, namespaced},
      {{"", "ComponentStatus"}, cluster},
      {{"", "ConfigMap"}, namespaced},
      {{"", "Endpoints"}, namespaced},
      {{"", "Event"}, namespaced},
      {{"", "LimitRange"}, namespaced},
      {{"", "Namespace"}, cluster},
      {{"", "Node"}, cluster},
      {{"", "PersistentVolume"}, cluster},
      {{"", "PersistentVolumeClaim"}, namespaced},
      {{"", "Pod"}, namespaced},
      {{"", "PodTemplate"}, namespaced},
      {{"", "ReplicationController"}, namespaced},
      {{"", "ResourceQuota"}, namespaced},
      {{"", "Secret"}, namespaced},
      {{"", "Service"}, namespaced},
      {{"", "ServiceAccount"}, namespaced},
      {{"admissionregistration.k8s.io", "MutatingAdmissionPolicy"}, cluster},
      {{"admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"}, cluster},
      {{"admissionregistration.k8s.io", "MutatingWebhookConfiguration"}, cluster},
      {{"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"}, cluster},
      {{"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"}, cluster},
      {{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"}, cluster},
      {{"apiextensions.k8s.io", "CustomResourceDefinition"}, cluster},
      {{"apiregistration.k8s.io", "APIService"}, cluster},
      {{"apps", "ControllerRevision"}, namespaced},
      {{"apps", "DaemonSet"}, namespaced},
      {{"apps", "Deployment"}, namespaced},
      {{"apps", "ReplicaSet"}, namespaced},
      {{"apps", "StatefulSet"}, namespaced},
      {{"authentication.k8s.io", "SelfSubjectReview"}, cluster},
      {{"authentication.k8s.io", "TokenReview"}, cluster},
      {{"authorization.k8s.io", "LocalSubjectAccessReview"}, namespaced},
      {{"authorization.k8s.io", "SelfSubjectAccessReview"}, cluster},
      {{"authorization.k8s.io", "SelfSubjectRulesReview"}, cluster},
      {{"authorization.k8s.io", "SubjectAccessReview"}, cluster},
      {{"autoscaling", "HorizontalPodAutoscaler"}, namespaced},
      {{"batch", "CronJob"}, namespaced},
      {{"batch", "Job"}, namespaced},
      {{"certificates.k8s.io", "CertificateSigningRequest"}, cluster},
      {{"certificates.k8s.io", "ClusterTrustBundle"}, cluster},
      {{"certificates.k8s.io", "PodCertificateRequest"}, namespaced},
      {{"coordination.k8s.io", "Lease"}, namespaced},
      {{"coordination.k8s.io", "LeaseCandidate"}, namespaced},
      {{"discovery.k8s.io", "EndpointSlice"}, namespaced},
      {{"events.k8s.io", "Event"}, namespaced},
      {{"flowcontrol.apiserver.k8s.io", "FlowSchema"}, cluster},
      {{"flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"}, cluster},
      {{"internal.apiserver.k8s.io", "StorageVersion"}, cluster},
      {{"networking.k8s.io", "IPAddress"}, cluster},
      {{"networking.k8s.io", "Ingress"}, namespaced},
      {{"networking.k8s.io", "IngressClass"}, cluster},
      {{"networking.k8s.io", "NetworkPolicy"}, namespaced},
      {{"networking.k8s.io", "ServiceCIDR"}, cluster},
      {{"node.k8s.io", "RuntimeClass"}, cluster},
      {{"policy", "PodDisruptionBudget"}, namespaced},
      {{"rbac.authorization.k8s.io", "ClusterRole"}, cluster},
      {{"rbac.authorization.k8s.io", "ClusterRoleBinding"}, cluster},
      {{"rbac.authorization.k8s.io", "Role"}, namespaced},
      {{"rbac.authorization.k8s.io", "RoleBinding"}, namespaced},
      {{"resource.k8s.io", "DeviceClass"}, cluster},
      {{"resource.k8s.io", "DeviceTaintRule"}, cluster},
      {{"resource.k8s.io", "ResourceClaim"}, namespaced},
      {{"resource.k8s.io", "ResourceClaimTemplate"}, namespaced},
      {{"resource.k8s.io", "ResourceSlice"}, cluster},
      {{"scheduling.k8s.io", "PriorityClass"}, cluster},
      {{"storage.k8s.io", "CSIDriver"}, cluster},
      {{"storage.k8s.io", "CSINode"}, cluster},
      {{"storage.k8s.io", "CSIStorageCapacity"}, namespaced},
      {{"storage.k8s.io", "StorageClass"}, cluster},
      {{"storage.k8s.io", "VolumeAttachment"}, cluster},
      {{"storage.k8s.io", "VolumeAttributesClass"}, cluster},
      {{"storagemigration.k8s.io", "StorageVersionMigration"}, cluster},
  };
  auto found = scopes.find(kind);
  if (found == scopes.end()) return std::nullopt;
  return found->second;
}

std::optional<CrdKind> crd_kind(const Json& crd) {
  std::string kind = text_at(crd, {"spec", "names", "kind"});
  if (kind.empty()) return std::nullopt;
  return CrdKind{{text_at(crd, {"spec", "group"}), kind},
                 text_at(crd, {"spec", "scope"}) == "Namespaced",
                 version_names(crd)};
}

bool CrdKind::defines(const model::GroupVersionKind& gvk) const {
  return gvk.group == kind.group && gvk.kind == kind.kind &&
         std::find(versions.begin(), versions.end(), gvk.version) != versions.end();
}

std::map<GroupKind, CrdKind> crd_kinds(const std::vector<model::Object>& objects) {
  std::map<GroupKind, CrdKind> defined;
  for (const auto& object : objects) {
    if (!is_crd(object.gvk())) continue;
    model::PackedAfter packed(object);
    if (auto found = crd_kind(object.body())) defined.insert_or_assign(found->kind, std::move(*found));
  }
  return defined;
}

std::string unknown_kind_message(const model::GroupVersionKind& gvk) {
  return fmt::format(
      "the cluster does not serve kind \"{}\" in apiVersion \"{}\" and no CustomResourceDefinition in the "
      "manifests defines it",
      gvk.kind, gvk.api_version());
}

void resolve_scopes(const ServedScope& served, std::vector<model::Object>& objects,
                    const std::string& default_namespace) {
  auto defined = crd_kinds(objects);
  std::vector<Problem> problems;
  for (auto& object : objects) {
    model::PackedAfter packed(object);
    auto gvk = object.gvk();
    std::optional<bool> namespaced = served(gvk);
    if (!namespaced)
      if (auto crd = defined.find({gvk.group, gvk.kind}); crd != defined.end() && crd->second.defines(gvk))
        namespaced = crd->second.namespaced;
    if (!namespaced) {
      problems.push_back(
          {object.location().file, object.line_of("/kind"), "kind", unknown_kind_message(gvk)});
      continue;
    }
    if (*namespaced && object.namespace_name().empty()) object.set_namespace(default_namespace);
    if (!*namespaced && !object.namespace_name().empty())
      object.mutable_body()["metadata"].erase("namespace");
  }
  if (!problems.empty()) throw InvalidInputError(std::move(problems));
}

}  // namespace opctl::plan
