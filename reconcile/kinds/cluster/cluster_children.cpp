#include "kinds/cluster/cluster_children.hpp"

#include "diff/owned_values.hpp"
#include "kinds/cluster/backup_contract.hpp"
#include "kinds/cluster/cluster_certificates.hpp"
#include "kinds/cluster/cluster_monitoring.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_view.hpp"
#include "kinds/kind_reconciler.hpp"
#include "model/sha256.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

// Bumped whenever build_pod changes what it generates, so existing Pods roll.
// Not for the exporter's port: a port a container declares is informational
// (the exporter listens either way), and every Cluster would roll for it; a
// Pod gets it at its next roll, e.g. the image update that brings the exporter.
constexpr int k_pod_generator_version = 3;  // 3: one ServiceAccount per instance
// CloudNativePG's default stopDelay: time for a clean (smart, then fast) shutdown.
constexpr int k_termination_grace_seconds = 1800;

// The spec fields the pass applied before. Re-sending the whole live spec
// would claim what the server defaulted (a claim's volumeMode), a write that
// changes only managedFields; objects created before opctl-controller
// applied them have no entry, and keep the whole spec.
Json applied_spec(const Json& live) {
  auto owned = diff::owned_part(live, k_controller_field_manager);
  if (owned && owned->contains("spec")) return (*owned)["spec"];
  return live.value("spec", Json::object());
}

Json env_field(const char* name, const char* field_path) {
  return {{"name", name}, {"valueFrom", {{"fieldRef", {{"fieldPath", field_path}}}}}};
}

Json instance_labels(const ClusterSpec& spec, const std::string& instance) {
  return {{k_cluster_label, spec.name}, {k_instance_label, instance}};
}

// The instance manager (`opctl instance run`, in the instance image) is PID 1:
// it reads its role, the Cluster and the Secrets through the API with the
// Pod's ServiceAccount, so no password is in the environment.
Json postgres_container(const ClusterSpec& spec, const PodTemplate& pod_template) {
  Json env = Json::array({env_value("PGDATA", k_pgdata), env_value("PGPORT", std::to_string(k_postgres_port)),
                          env_field("POD_NAME", "metadata.name"),
                          env_field("NAMESPACE", "metadata.namespace"), env_value("CLUSTER_NAME", spec.name),
                          env_value("OPCTL_PRIMARY_SERVICE", rw_service(spec.name))});
  Json container = {
      {"name", "postgres"},
      {"image", pod_template.image},
      {"command", Json::array({"opctl", "instance", "run"})},
      {"env", env},
      {"ports",
       Json::array({{{"name", "postgresql"}, {"containerPort", k_postgres_port}, {"protocol", "TCP"}}})},
      {"readinessProbe", readiness_probe(spec.scheduling.readiness)},
      {"volumeMounts",
       Json::array({{{"name", "pgdata"}, {"mountPath", k_data_mount}},
                    {{"name", "run"}, {"mountPath", k_run_mount}},
                    {{"name", "podinfo"}, {"mountPath", "/etc/opctl/podinfo"}, {"readOnly", true}}})}};
  if (spec.scheduling.liveness) container["livenessProbe"] = health_probe(*spec.scheduling.liveness);
  if (spec.scheduling.startup) container["startupProbe"] = health_probe(*spec.scheduling.startup);
  apply_monitoring_to_container(spec.monitoring, container);
  if (!spec.resources.empty()) container["resources"] = spec.resources;
  if (pod_template.wal_archive && pod_template.wal_archive->store) {
    const ObjectStore& store = *pod_template.wal_archive->store;
    container["env"].push_back(
        env_value("OPCTL_WAL_ARCHIVE_COMMAND", Json(wal_archive_argv(store, spec.name)).dump()));
    container["env"].push_back(
        env_value("OPCTL_WAL_ARCHIVE_CHECK", Json(wal_archive_check_argv(store, spec.name)).dump()));
    container["env"].push_back(
        env_value("OPCTL_BACKUP_COMMAND", Json(store_backup_argv(store, spec.name)).dump()));
    for (const auto& variable : object_store_env(store))
      container["env"].push_back(variable);
    if (auto mount = object_store_ca_mount(store)) container["volumeMounts"].push_back(*mount);
  } else if (pod_template.wal_archive) {
    container["env"].push_back(env_value("OPCTL_WAL_ARCHIVE_DIR", pod_template.wal_archive->directory));
    container["volumeMounts"].push_back({{"name", "backups"}, {"mountPath", k_backup_mount}});
  }
  return container;
}

Json service(const ClusterSpec& spec, const std::string& name, Json selector) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", child_metadata(spec, name)},
          {"spec",
           {{"type", "ClusterIP"},
            {"selector", std::move(selector)},
            {"ports", Json::array({{{"name", "postgres"},
                                    {"port", k_postgres_port},
                                    {"targetPort", k_postgres_port},
                                    {"protocol", "TCP"}}})}}}};
}

Json disruption_budget(const ClusterSpec& spec, const std::string& name, const char* role,
                       int min_available) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", child_metadata(spec, name)},
          {"spec",
           {{"minAvailable", min_available},
            {"selector", {{"matchLabels", {{k_cluster_label, spec.name}, {k_role_label, role}}}}}}}};
}

}  // namespace

Json child_metadata(const ClusterSpec& spec, const std::string& name) {
  return {{"name", name}, {"namespace", spec.namespace_name}, {"labels", {{k_cluster_label, spec.name}}}};
}

Json pod_security_context(const ClusterSpec& spec) {
  // OnRootMismatch: a recreated instance's volume is not walked file by file
  // (slow on a large database, and it would open PGDATA to the group).
  return {{"runAsUser", spec.postgres_uid},
          {"runAsGroup", spec.postgres_gid},
          {"fsGroup", spec.postgres_gid},
          {"fsGroupChangePolicy", "OnRootMismatch"},
          {"runAsNonRoot", spec.postgres_uid != 0}};
}

Json env_value(const char* name, const std::string& value) {
  return {{"name", name}, {"value", value}};
}

Json pvc_volume(const std::string& volume, const std::string& claim, bool read_only) {
  Json source = {{"claimName", claim}};
  if (read_only) source["readOnly"] = true;
  return {{"name", volume}, {"persistentVolumeClaim", source}};
}

PodTemplate pod_template(const ClusterSpec& spec, const std::string& image,
                         std::optional<WalArchive> wal_archive) {
  Json inputs = {{"generator", k_pod_generator_version},
                 {"image", image},
                 {"resources", spec.resources},
                 {"uid", spec.postgres_uid},
                 {"gid", spec.postgres_gid}};
  // Only when set, so changing them rolls the instances and Clusters without them keep their hash.
  if (Json scheduling = spec.scheduling.hash_inputs(); !scheduling.empty()) inputs["scheduling"] = scheduling;
  if (!spec.monitoring.custom_queries.empty()) {
    Json queries = Json::array();
    for (const auto& reference : spec.monitoring.custom_queries)
      queries.push_back({{"name", reference.name}, {"key", reference.key}});
    inputs["customQueries"] = std::move(queries);
  }
  if (!spec.restarted_at.empty()) inputs["restartedAt"] = spec.restarted_at;
  if (wal_archive && wal_archive->store)
    inputs["walArchive"] = {{"store", wal_archive_argv(*wal_archive->store, spec.name)},
                            {"backup", store_backup_argv(*wal_archive->store, spec.name)},
                            {"env", object_store_env(*wal_archive->store)}};
  else if (wal_archive)
    inputs["walArchive"] = {{"directory", wal_archive->directory}, {"volume", wal_archive->volume}};
  return {image, model::sha256_hex(inputs.dump()).substr(0, 16), std::move(wal_archive)};
}

Json build_pod(const ClusterSpec& spec, const PodTemplate& pod_template, const std::string& instance,
               const std::string& role) {
  Json metadata = child_metadata(spec, instance);
  metadata["labels"] = instance_labels(spec, instance);
  metadata["labels"][k_role_label] = role;
  metadata["annotations"] = {{k_spec_hash_annotation, pod_template.hash}};
  Json podinfo = {
      {"name", "podinfo"},
      {"downwardAPI",
       {{"items",
         Json::array({{{"path", "labels"}, {"fieldRef", {{"fieldPath", "metadata.labels"}}}},
                      {{"path", "annotations"}, {"fieldRef", {{"fieldPath", "metadata.annotations"}}}}})}}}};
  Json volumes = Json::array(
      {pvc_volume("pgdata", instance), podinfo, {{"name", "run"}, {"emptyDir", {{"medium", "Memory"}}}}});
  if (pod_template.wal_archive && pod_template.wal_archive->store) {
    if (auto ca = object_store_ca_volume(*pod_template.wal_archive->store)) volumes.push_back(std::move(*ca));
  } else if (pod_template.wal_archive) {
    Json backups = pod_template.wal_archive->volume;
    backups["name"] = "backups";
    volumes.push_back(std::move(backups));
  }
  Json pod_spec = {{"serviceAccountName", instance},
                   {"securityContext", pod_security_context(spec)},
                   {"terminationGracePeriodSeconds", k_termination_grace_seconds},
                   {"containers", Json::array({postgres_container(spec, pod_template)})},
                   {"volumes", volumes}};
  apply_monitoring_to_pod(spec.monitoring, pod_spec);
  apply_scheduling(spec.scheduling, {{k_cluster_label, spec.name}}, pod_spec);
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", std::move(pod_spec)}};
}

Json carry_over_pod(const ClusterSpec& spec, const Json& live, const std::string& role) {
  std::string instance = live["metadata"].value("name", "");
  Json metadata = child_metadata(spec, instance);
  metadata["labels"] = instance_labels(spec, instance);
  metadata["labels"][k_role_label] = role;
  if (std::string hash = annotation_of(live, k_spec_hash_annotation); !hash.empty())
    metadata["annotations"] = {{k_spec_hash_annotation, hash}};
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", applied_spec(live)}};
}

Json build_pvc(const ClusterSpec& spec, const std::string& instance) {
  Json metadata = child_metadata(spec, instance);
  metadata["labels"] = instance_labels(spec, instance);
  Json pvc_spec = {{"accessModes", Json::array({"ReadWriteOnce"})},
                   {"resources", {{"requests", {{"storage", spec.storage.size}}}}}};
  if (!spec.storage.storage_class.empty()) pvc_spec["storageClassName"] = spec.storage.storage_class;
  return {
      {"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", metadata}, {"spec", pvc_spec}};
}

Json carry_over_pvc(const ClusterSpec& spec, const Json& live, bool detached) {
  std::string instance = live["metadata"].value("name", "");
  Json metadata = child_metadata(spec, instance);
  metadata["labels"] = instance_labels(spec, instance);
  if (detached) metadata["annotations"] = {{k_detached_annotation, "true"}};
  Json pvc_spec = applied_spec(live);
  // Volumes only grow; a smaller size in the spec applies to new volumes only.
  Json::json_pointer storage("/resources/requests/storage");
  std::string current =
      pvc_spec.contains(storage) && pvc_spec[storage].is_string() ? pvc_spec[storage].get<std::string>() : "";
  auto wanted_bytes = quantity_bytes(spec.storage.size);
  auto current_bytes = quantity_bytes(current);
  if (!detached && wanted_bytes && (!current_bytes || *wanted_bytes > *current_bytes))
    pvc_spec[storage] = spec.storage.size;
  return {
      {"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", metadata}, {"spec", pvc_spec}};
}

std::vector<Json> build_services(const ClusterSpec& spec) {
  return {
      service(spec, rw_service(spec.name), {{k_cluster_label, spec.name}, {k_role_label, k_role_primary}}),
      service(spec, ro_service(spec.name), {{k_cluster_label, spec.name}, {k_role_label, k_role_replica}}),
      service(spec, r_service(spec.name), {{k_cluster_label, spec.name}})};
}

std::vector<Json> build_disruption_budgets(const ClusterSpec& spec) {
  std::vector<Json> budgets = {disruption_budget(spec, primary_pdb(spec.name), k_role_primary, 1)};
  // With 2 instances the replicas' budget would be minAvailable 0, which allows every eviction anyway.
  if (int replicas_left = spec.instances - 2; replicas_left >= 1)
    budgets.push_back(disruption_budget(spec, replica_pdb(spec.name), k_role_replica, replicas_left));
  return budgets;
}

std::vector<Json> build_instance_rbac(const ClusterSpec& spec, const std::string& instance) {
  // One identity per instance, so that an instance can write only its own
  // Pod (its report and its role label): the manager lists the Cluster's
  // Pods (its peers, their addresses), patches its own Pod, reads the Cluster
  // and the Secrets, and reads and writes the primary Lease. It polls and
  // never watches, so no `watch`.
  // Its TLS material: the server certificate and key, and the CA's certificate (never the CA's key).
  TlsSecretNames tls = tls_secret_names(spec.name, spec.certificates);
  Json secrets = {app_secret(spec.name), superuser_secret(spec.name), replication_secret(spec.name),
                  tls.server};
  if (tls.ca != tls.server) secrets.push_back(tls.ca);
  // The primary also reads the Secrets that spec.managed.roles take passwords from: those, by name, and no
  // other.
  for (const auto& name : password_secrets(spec.managed))
    secrets.push_back(name);
  Json rules = Json::array(
      {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list"}}},
       {{"apiGroups", {""}}, {"resources", {"pods"}}, {"resourceNames", {instance}}, {"verbs", {"patch"}}},
       {{"apiGroups", {""}}, {"resources", {"secrets"}}, {"resourceNames", secrets}, {"verbs", {"get"}}},
       {{"apiGroups", {k_group}},
        {"resources", {"clusters"}},
        {"resourceNames", {spec.name}},
        {"verbs", {"get"}}},
       {{"apiGroups", {"coordination.k8s.io"}},
        {"resources", {"leases"}},
        {"resourceNames", {primary_lease(spec.name)}},
        {"verbs", {"get", "update"}}}});
  Json labels = {{k_cluster_label, spec.name}, {k_instance_label, instance}};
  auto metadata = [&] {
    Json out = child_metadata(spec, instance);
    out["labels"] = labels;
    return out;
  };
  Json account = {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", metadata()}};
  Json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "Role"},
               {"metadata", metadata()},
               {"rules", rules}};
  Json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", metadata()},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", instance}}},
      {"subjects",
       Json::array({{{"kind", "ServiceAccount"}, {"name", instance}, {"namespace", spec.namespace_name}}})}};
  return {account, role, binding};
}

Json build_primary_lease(const ClusterSpec& spec) {
  // Metadata only: the spec (holder, renewals) is the instance managers', never the pass's.
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", child_metadata(spec, primary_lease(spec.name))}};
}

Json carry_over_job(const Json& live) {
  const Json& metadata = live["metadata"];
  Json out_metadata = {{"name", metadata.value("name", "")}, {"namespace", metadata.value("namespace", "")}};
  // Only the labels the pass set: the server adds its own (job-name, controller-uid).
  Json labels = Json::object();
  for (const char* key : {k_cluster_label, k_job_label, k_backup_label})
    if (std::string value = label_of(live, key); !value.empty()) labels[key] = value;
  out_metadata["labels"] = labels;
  out_metadata["annotations"] = {{k_create_only_annotation, "true"}};
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", out_metadata},
          {"spec", live.value("spec", Json::object())}};
}

}  // namespace opctl::kinds::cluster
