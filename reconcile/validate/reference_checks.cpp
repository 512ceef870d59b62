#include "validate/reference_checks.hpp"

#include <fmt/format.h>

#include <functional>

#include "validate/field_path.hpp"
#include "validate/json_fields.hpp"
#include "validate/messages.hpp"

namespace opctl::validate {
namespace {

using model::Json;
using model::Object;
using plan::GroupKind;

const GroupKind k_config_map{"", "ConfigMap"};
const GroupKind k_secret{"", "Secret"};
const GroupKind k_service_account{"", "ServiceAccount"};
const GroupKind k_role{"rbac.authorization.k8s.io", "Role"};
const GroupKind k_cluster_role{"rbac.authorization.k8s.io", "ClusterRole"};

struct Reference {
  GroupKind kind;
  std::string namespace_name;  // empty for cluster-scoped kinds
  std::string name;
  FieldPath path;   // where the name is written
  std::string key;  // a key the ConfigMap or Secret must have; empty when none
  FieldPath key_path;
};

bool every_cluster_has(const Reference& reference) {
  if (reference.kind == k_service_account) return reference.name == "default";
  if (reference.kind == k_config_map) return reference.name == "kube-root-ca.crt";
  if (reference.kind == k_cluster_role)
    return reference.name == "cluster-admin" || reference.name == "admin" || reference.name == "edit" ||
           reference.name == "view" || reference.name.starts_with("system:");
  return false;
}

// Calls `visit` for every object item of the list `key` of `parent`.
void each_item(const Json& parent, const FieldPath& at, const std::string& key,
               const std::function<void(const Json&, const FieldPath&)>& visit) {
  const Json* list = field(parent, key);
  if (list == nullptr || !list->is_array()) return;
  for (std::size_t i = 0; i < list->size(); ++i)
    if ((*list)[i].is_object()) visit((*list)[i], at.child(key).index(i));
}

// Collects the references of one object, in its namespace.
class ReferenceCollector {
 public:
  ReferenceCollector(std::string namespace_name, std::vector<Reference>& out)
      : namespace_(std::move(namespace_name)), out_(out) {}

  // A `{name: ..., optional: ...}` selector at `parent.key`.
  void named(const GroupKind& kind, const Json& parent, const FieldPath& at, const std::string& key,
             const std::string& name_field = "name") {
    const Json* selector = field(parent, key);
    if (selector == nullptr || true_field(*selector, "optional")) return;
    add(kind, text_field(*selector, name_field), at.child(key).child(name_field));
  }

  void add(const GroupKind& kind, const std::string& name, const FieldPath& path, const std::string& key = "",
           const FieldPath& key_path = {}) {
    if (!name.empty()) out_.push_back({kind, namespace_, name, path, key, key_path});
  }

  void pod_spec(const Json& spec, const FieldPath& at) {
    if (!text_field(spec, "serviceAccountName").empty()) {
      add(k_service_account, text_field(spec, "serviceAccountName"), at.child("serviceAccountName"));
    } else {
      add(k_service_account, text_field(spec, "serviceAccount"), at.child("serviceAccount"));
    }
    for (const char* containers : {"initContainers", "containers", "ephemeralContainers"})
      each_item(spec, at, containers,
                [&](const Json& item, const FieldPath& path) { container(item, path); });
    each_item(spec, at, "volumes",
              [&](const Json& volume, const FieldPath& path) { this->volume(volume, path); });
    each_item(spec, at, "imagePullSecrets", [&](const Json& item, const FieldPath& path) {
      add(k_secret, text_field(item, "name"), path.child("name"));
    });
  }

  void role_binding(const Json& body, bool cluster_binding) {
    FieldPath ref_path = FieldPath{}.child("roleRef");
    if (const Json* role_ref = field(body, "roleRef")) {
      std::string kind = text_field(*role_ref, "kind");
      if (kind == "ClusterRole") {
        out_.push_back({k_cluster_role, "", text_field(*role_ref, "name"), ref_path.child("name"), "", {}});
      } else if (kind == "Role" && !cluster_binding) {
        add(k_role, text_field(*role_ref, "name"), ref_path.child("name"));
      }
    }
    each_item(body, FieldPath{}, "subjects", [&](const Json& subject, const FieldPath& path) {
      if (text_field(subject, "kind") != "ServiceAccount") return;
      std::string subject_namespace = text_field(subject, "namespace");
      if (subject_namespace.empty()) subject_namespace = namespace_;
      if (!text_field(subject, "name").empty())
        out_.push_back(
            {k_service_account, subject_namespace, text_field(subject, "name"), path.child("name"), "", {}});
    });
  }

 private:
  void volume(const Json& volume, const FieldPath& path) {
    named(k_config_map, volume, path, "configMap");
    named(k_secret, volume, path, "secret", "secretName");
    const Json* projected = field(volume, "projected");
    if (projected == nullptr) return;
    each_item(*projected, path.child("projected"), "sources", [&](const Json& source, const FieldPath& at) {
      named(k_config_map, source, at, "configMap");
      named(k_secret, source, at, "secret");
    });
  }

  void container(const Json& container, const FieldPath& path) {
    each_item(container, path, "envFrom", [&](const Json& source, const FieldPath& at) {
      named(k_config_map, source, at, "configMapRef");
      named(k_secret, source, at, "secretRef");
    });
    each_item(container, path, "env", [&](const Json& variable, const FieldPath& at) {
      const Json* from = field(variable, "valueFrom");
      if (from == nullptr) return;
      key_selector(k_config_map, *from, at.child("valueFrom"), "configMapKeyRef");
      key_selector(k_secret, *from, at.child("valueFrom"), "secretKeyRef");
    });
  }

  void key_selector(const GroupKind& kind, const Json& from, const FieldPath& at, const std::string& key) {
    const Json* selector = field(from, key);
    if (selector == nullptr || true_field(*selector, "optional")) return;
    FieldPath path = at.child(key);
    add(kind, text_field(*selector, "name"), path.child("name"), text_field(*selector, "key"),
        path.child("key"));
  }

  std::string namespace_;
  std::vector<Reference>& out_;
};

// Where a kind keeps its pod spec.
std::vector<std::string> pod_spec_location(const GroupKind& kind) {
  static const std::map<GroupKind, std::vector<std::string>> locations = {
      {{"", "Pod"}, {"spec"}},
      {{"", "PodTemplate"}, {"template", "spec"}},
      {{"", "ReplicationController"}, {"spec", "template", "spec"}},
      {{"apps", "Deployment"}, {"spec", "template", "spec"}},
      {{"apps", "StatefulSet"}, {"spec", "template", "spec"}},
      {{"apps", "DaemonSet"}, {"spec", "template", "spec"}},
      {{"apps", "ReplicaSet"}, {"spec", "template", "spec"}},
      {{"batch", "Job"}, {"spec", "template", "spec"}},
      {{"batch", "CronJob"}, {"spec", "jobTemplate", "spec", "template", "spec"}},
  };
  auto found = locations.find(kind);
  return found == locations.end() ? std::vector<std::string>{} : found->second;
}

std::vector<Reference> references_of(const Object& object) {
  std::vector<Reference> references;
  GroupKind kind{object.gvk().group, object.kind()};
  bool role_binding = kind == GroupKind{"rbac.authorization.k8s.io", "RoleBinding"};
  bool cluster_role_binding = kind == GroupKind{"rbac.authorization.k8s.io", "ClusterRoleBinding"};
  auto location = pod_spec_location(kind);
  if (!role_binding && !cluster_role_binding && location.empty())
    return references;  // nothing to read: left packed
  model::PackedAfter packed(object);
  ReferenceCollector collector(object.namespace_name(), references);
  if (role_binding || cluster_role_binding) collector.role_binding(object.body(), cluster_role_binding);
  const Json* spec = &object.body();
  FieldPath at;
  for (const auto& key : location) {
    spec = field(*spec, key);
    if (spec == nullptr) return references;
    at = at.child(key);
  }
  if (!location.empty()) collector.pod_spec(*spec, at);
  return references;
}

bool has_key(const Object& target, const std::string& key) {
  model::PackedAfter packed(target);
  for (const char* map : {"data", "binaryData", "stringData"})
    if (const Json* entries = field(target.body(), map);
        entries != nullptr && field(*entries, key) != nullptr)
      return true;
  return false;
}

std::string describe(const Reference& reference) {
  std::string where = reference.namespace_name.empty() ? "" : reference.namespace_name + "/";
  return fmt::format("{} {}{}", reference.kind.kind, where, reference.name);
}

Finding warning(const Object& object, const FieldPath& path, std::string message) {
  return {Finding::Severity::warning,
          Problem{object.location().file, object.line_of(path.pointer), path.field, std::move(message)},
          object.key().to_string()};
}

}  // namespace

std::vector<Finding> reference_findings(const DesiredIndex& desired) {
  std::vector<Finding> findings;
  for (const auto& object : desired.objects()) {
    for (const auto& reference : references_of(object)) {
      if (!desired.has_kind(reference.kind) || every_cluster_has(reference)) continue;
      const Object* target = desired.find(reference.kind, reference.namespace_name, reference.name);
      if (target == nullptr) {
        auto names = desired.names(reference.kind, reference.namespace_name);
        findings.push_back(warning(object, reference.path,
                                   fmt::format("{} is not in the manifests{}", describe(reference),
                                               did_you_mean(reference.name, names))));
      } else if (!reference.key.empty() && !has_key(*target, reference.key)) {
        findings.push_back(warning(object, reference.key_path,
                                   fmt::format("{} has no key \"{}\"", describe(reference), reference.key)));
      }
    }
  }
  return findings;
}

}  // namespace opctl::validate
