#include "validate/kind_scopes.hpp"

#include "validate/json_fields.hpp"

namespace opctl::validate {

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

std::optional<std::pair<GroupKind, bool>> crd_scope(const model::Json& crd) {
  const model::Json* spec = field(crd, "spec");
  const model::Json* names = spec != nullptr ? field(*spec, "names") : nullptr;
  if (names == nullptr || text_field(*names, "kind").empty()) return std::nullopt;
  return std::pair{GroupKind{text_field(*spec, "group"), text_field(*names, "kind")},
                   text_field(*spec, "scope") == "Namespaced"};
}

std::map<GroupKind, bool> crd_scopes(const std::vector<model::Object>& objects) {
  std::map<GroupKind, bool> scopes;
  for (const auto& object : objects) {
    if (object.gvk().group != "apiextensions.k8s.io" || object.kind() != "CustomResourceDefinition") continue;
    if (auto scope = crd_scope(object.body())) scopes[scope->first] = scope->second;
  }
  return scopes;
}

}  // namespace opctl::validate
