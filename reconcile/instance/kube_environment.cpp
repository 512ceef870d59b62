#include "instance/kube_environment.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "instance/instance_error.hpp"
#include "kinds/cluster/cluster_annotations.hpp"
#include "kinds/cluster/cluster_certificates.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/kind_time.hpp"
#include "kube/api_error.hpp"
#include "kube/rest_mapper.hpp"
#include "model/base64.hpp"

namespace opctl::instance {
namespace {

namespace names = kinds::cluster;
using model::Json;
using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

inline constexpr const char* k_field_manager = "opctl-instance";
// How often an unchanged report is written again (opctl.io/reported-at).
inline constexpr std::chrono::seconds k_heartbeat{10};

kube::ResourceInfo clusters_resource() {
  kube::ResourceInfo info;
  info.gvk = {names::k_group, names::k_version, "Cluster"};
  info.resource = "clusters";
  info.namespaced = true;
  return info;
}

std::string text_at(const Json& object, const char* pointer) {
  Json::json_pointer at(pointer);
  return object.contains(at) && object[at].is_string() ? object[at].get<std::string>() : "";
}

int int_at(const Json& object, const char* pointer) {
  Json::json_pointer at(pointer);
  return object.contains(at) && object[at].is_number_integer() ? object[at].get<int>() : 0;
}

}  // namespace

KubeEnvironment::KubeEnvironment(kube::ApiClient& client, InstanceIdentity identity)
    : client_(client), identity_(std::move(identity)) {}

std::optional<Credentials> KubeEnvironment::read_credentials() {
  auto secrets = kube::core_v1_resource("Secret", "secrets", true);
  std::vector<kube::HttpRequest> requests;
  for (const auto& name : {names::superuser_secret(identity_.cluster), names::app_secret(identity_.cluster),
                           names::replication_secret(identity_.cluster)})
    requests.push_back(client_.get_request(secrets, identity_.namespace_name, name));
  auto results = client_.execute(requests);
  for (const auto& result : results)
    if (!result.ok()) {
      if (result.status.reason == kube::ApiReason::not_found) return std::nullopt;  // the pass creates it
      throw kube::ApiError(result.status);
    }
  auto field = [](const Json& secret, const char* key) {
    Json::json_pointer at(std::string("/data/") + key);
    if (!secret.contains(at) || !secret[at].is_string()) return std::string();
    return model::base64_decode(secret[at].get<std::string>()).value_or("");
  };
  Credentials credentials;
  credentials.superuser_password = field(results[0].object, "password");
  credentials.app_user = field(results[1].object, "username");
  credentials.app_password = field(results[1].object, "password");
  credentials.app_database = field(results[1].object, "dbname");
  credentials.replication_password = field(results[2].object, "password");
  return credentials;
}

std::map<std::string, RolePassword> KubeEnvironment::read_role_passwords(
    const std::vector<std::string>& names) {
  std::map<std::string, RolePassword> out;
  if (names.empty()) return out;
  auto secrets = kube::core_v1_resource("Secret", "secrets", true);
  std::vector<kube::HttpRequest> requests;
  for (const auto& name : names)
    requests.push_back(client_.get_request(secrets, identity_.namespace_name, name));
  auto results = client_.execute(requests);
  for (std::size_t i = 0; i < names.size(); ++i) {
    RolePassword& secret = out[names[i]];
    const auto& result = results[i];
    if (!result.ok()) {
      // Forbidden until a pass grants this instance the Secret (its Role names each one).
      secret.problem = result.status.reason == kube::ApiReason::not_found
                           ? "it does not exist"
                           : "it cannot be read: " + result.status.message;
      continue;
    }
    auto field = [&](const char* key) {
      Json::json_pointer at(std::string("/data/") + key);
      if (!result.object.contains(at) || !result.object[at].is_string()) return std::string();
      return model::base64_decode(result.object[at].get<std::string>()).value_or("");
    };
    secret.version =
        text_at(result.object, "/metadata/uid") + "/" + text_at(result.object, "/metadata/resourceVersion");
    secret.username = field("username");
    secret.password = field("password");
    if (secret.password.empty()) secret.problem = "it has no password";
  }
  return out;
}

std::optional<TlsMaterial> KubeEnvironment::read_tls(const Json& cluster_spec) {
  auto names =
      kinds::cluster::tls_secret_names(identity_.cluster, kinds::cluster::certificates_spec(cluster_spec));
  auto secrets = kube::core_v1_resource("Secret", "secrets", true);
  std::vector<kube::HttpRequest> requests = {
      client_.get_request(secrets, identity_.namespace_name, names.server)};
  if (names.ca != names.server)
    requests.push_back(client_.get_request(secrets, identity_.namespace_name, names.ca));
  auto results = client_.execute(requests);
  for (const auto& result : results)
    if (!result.ok()) {
      // Not there yet (the pass creates it), or a Role written before TLS: served once readable.
      if (result.status.reason == kube::ApiReason::not_found ||
          result.status.reason == kube::ApiReason::forbidden)
        return tls_;
      throw kube::ApiError(result.status);
    }
  namespace cluster = kinds::cluster;
  TlsMaterial material;
  material.certificate = cluster::secret_text(&results[0].object, cluster::k_tls_certificate_key);
  material.key = cluster::secret_text(&results[0].object, cluster::k_tls_private_key);
  material.ca = cluster::secret_text(&results.back().object, cluster::k_ca_certificate_key);
  return material;
}

std::vector<BackupRequest> KubeEnvironment::read_backup_requests() {
  auto pods = kube::core_v1_resource("Pod", "pods", true);
  kube::ListOptions options;
  options.label_selector = fmt::format("{}={}", names::k_backup_request_label, identity_.cluster);
  std::vector<Json> items = client_.list(pods, identity_.namespace_name, options);
  std::vector<std::pair<std::string, BackupRequest>> requests;
  for (const auto& pod : items) {
    if (pod["metadata"].contains("deletionTimestamp") || text_at(pod, "/status/phase") != "Running") continue;
    requests.push_back({text_at(pod, "/metadata/creationTimestamp") + " " + text_at(pod, "/metadata/name"),
                        {text_at(pod, "/metadata/name"), text_at(pod, "/metadata/uid")}});
  }
  std::sort(requests.begin(), requests.end(),
            [](const auto& left, const auto& right) { return left.first < right.first; });
  std::vector<BackupRequest> out;
  for (auto& [order, request] : requests)
    out.push_back(std::move(request));
  return out;
}

Inputs KubeEnvironment::observe() {
  auto pods = kube::core_v1_resource("Pod", "pods", true);
  kube::ListOptions options;
  options.label_selector = fmt::format("{}={}", names::k_cluster_label, identity_.cluster);
  std::vector<Json> items = client_.list(pods, identity_.namespace_name, options);
  auto cluster =
      client_.execute(client_.get_request(clusters_resource(), identity_.namespace_name, identity_.cluster));
  if (!cluster.ok()) throw kube::ApiError(cluster.status);

  Inputs inputs;
  const Json* self = nullptr;
  for (const auto& pod : items) {
    std::string name = text_at(pod, "/metadata/name");
    if (name == identity_.name) {
      self = &pod;
      continue;
    }
    if (pod["metadata"].contains("deletionTimestamp")) continue;
    inputs.peers.push_back(name);
    if (std::string ip = text_at(pod, "/status/podIP"); !ip.empty()) {
      auto reported = kinds::parse_time(
          text_at(pod, (std::string("/metadata/annotations/") + "opctl.io~1reported-at").c_str()));
      bool reporting = reported && std::chrono::system_clock::now() - *reported < std::chrono::seconds(30);
      inputs.addresses.push_back({name, ip, identity_.port, reporting});
    }
  }
  if (self == nullptr)
    throw InstanceError(fmt::format("this instance's Pod {} is not listed", identity_.name));
  inputs.being_deleted = (*self)["metadata"].contains("deletionTimestamp");
  inputs.target_primary = text_at(cluster.object, "/status/targetPrimary");
  inputs.current_primary = text_at(cluster.object, "/status/currentPrimary");
  role_label_ = text_at(*self, (std::string("/metadata/labels/") + "opctl.io~1role").c_str());
  inputs.cluster_uid = text_at(cluster.object, "/metadata/uid");
  inputs.primary_recorded = !text_at(cluster.object, "/status/currentPrimary").empty();
  Json::json_pointer names_at("/status/instanceNames");
  if (cluster.object.contains(names_at) && cluster.object[names_at].is_array())
    for (const auto& name : cluster.object[names_at])
      if (name.is_string() && name.get<std::string>() != identity_.name)
        inputs.members.push_back(name.get<std::string>());
  inputs.min_sync_replicas = int_at(cluster.object, "/spec/minSyncReplicas");
  inputs.max_sync_replicas = int_at(cluster.object, "/spec/maxSyncReplicas");
  inputs.failover_delay = std::chrono::seconds(int_at(cluster.object, "/spec/failoverDelay"));
  auto timing = [&](const char* pointer, std::chrono::seconds fallback) {
    int value = int_at(cluster.object, pointer);
    return value > 0 ? std::chrono::seconds(value) : fallback;
  };
  LeaseTimings defaults;
  inputs.lease_timings.duration = timing("/spec/primaryLease/leaseDurationSeconds", defaults.duration);
  inputs.lease_timings.renew_deadline =
      timing("/spec/primaryLease/renewDeadlineSeconds", defaults.renew_deadline);
  inputs.lease_timings.retry_period = timing("/spec/primaryLease/retryPeriodSeconds", defaults.retry_period);

  auto fenced = names::parse_fenced_instances(
      names::annotation_text(cluster.object, names::k_fenced_instances_annotation));
  inputs.fenced = fenced.value;
  inputs.fencing_problem = fenced.error;
  // A value that cannot be read is not "on": only the pass acts on hibernation, and reports it.
  inputs.hibernation =
      names::parse_hibernation(names::annotation_text(cluster.object, names::k_hibernation_annotation)).value;
  inputs.configuration = kinds::cluster::postgres_configuration(cluster.object.value("spec", Json::object()));
  inputs.reload_request = names::annotation_text(cluster.object, names::k_reload_annotation).value_or("");

  inputs.managed = kinds::cluster::managed_objects(cluster.object.value("spec", Json::object()));

  auto now = SteadyClock::now();
  std::vector<std::string> password_names = kinds::cluster::password_secrets(inputs.managed);
  bool names_changed =
      password_names.size() != role_passwords_.size() ||
      !std::equal(password_names.begin(), password_names.end(), role_passwords_.begin(),
                  [](const std::string& name, const auto& read) { return name == read.first; });
  if (!credentials_ || now - credentials_read_at_ > 10s || names_changed) {
    if (auto fresh = read_credentials()) credentials_ = fresh;
    role_passwords_ = read_role_passwords(password_names);
    tls_ = read_tls(cluster.object.value("spec", Json::object()));
    credentials_read_at_ = now;
  }
  inputs.credentials = credentials_;
  inputs.role_passwords = role_passwords_;
  inputs.tls = tls_;
  if (!identity_.backup_command.empty() && now - backup_requests_read_at_ > 5s) {
    backup_requests_ = read_backup_requests();
    backup_requests_read_at_ = now;
  }
  inputs.backup_requests = backup_requests_;
  return inputs;
}

void KubeEnvironment::report(const InstanceReport& report) {
  auto now = SteadyClock::now();
  // The role label -rw selects: primary only while PostgreSQL accepts writes here, which it does only
  // on the primary Lease's holder.
  std::string role = report.role == "primary" ? names::k_role_primary : names::k_role_replica;
  bool relabel = role != role_label_;
  // Unchanged, it is written again only as a heartbeat.
  if (!relabel && reported_ == report && now - reported_at_ < k_heartbeat) return;
  bool only_positions =
      reported_ && reported_->role == report.role && reported_->error == report.error &&
      reported_->config_hash == report.config_hash && reported_->pending_restart == report.pending_restart &&
      reported_->pending_decrease == report.pending_decrease && reported_->streaming == report.streaming &&
      reported_->timeline == report.timeline && reported_->managed == report.managed &&
      reported_->backup_requests == report.backup_requests;
  if (!relabel && only_positions && now - reported_at_ < 2s) return;
  auto value = [](const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); };
  Json annotations = {
      {names::k_instance_role_annotation, report.role},
      {names::k_current_lsn_annotation, value(report.current_lsn)},
      {names::k_received_lsn_annotation, value(report.received_lsn)},
      {names::k_replay_lsn_annotation, value(report.replay_lsn)},
      {names::k_timeline_annotation, value(report.timeline)},
      {names::k_streaming_annotation,
       report.role == "replica" ? Json(report.streaming ? "true" : "false") : Json(nullptr)},
      {names::k_instance_error_annotation, value(report.error)},
      {names::k_config_hash_annotation, value(report.config_hash)},
      {names::k_pending_restart_annotation, value(report.pending_restart)},
      {names::k_pending_decrease_annotation, value(report.pending_decrease)},
      {names::k_managed_status_annotation, value(report.managed)},
      {names::k_replication_annotation, value(report.replication)},
      {names::k_backup_requests_annotation, value(report.backup_requests)},
      {names::k_reported_at_annotation, kinds::format_time(std::chrono::system_clock::now())}};
  kube::PatchOptions options;
  options.field_manager = k_field_manager;
  auto pods = kube::core_v1_resource("Pod", "pods", true);
  auto result = client_.execute(client_.patch_request(
      pods, identity_.namespace_name, identity_.name,
      {{"metadata", {{"annotations", annotations}, {"labels", {{names::k_role_label, role}}}}}}, options));
  if (!result.ok()) throw kube::ApiError(result.status);
  role_label_ = role;
  reported_ = report;
  reported_at_ = now;
}

}  // namespace opctl::instance
