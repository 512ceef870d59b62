#include "kinds/cluster/cluster_overview.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kinds/cluster/cluster_annotations.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_view.hpp"
#include "kinds/cluster/lsn.hpp"
#include "kinds/cluster/tls_certificates.hpp"
#include "model/base64.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

// The keys of a Secret that hold certificates (kubernetes.io/tls and the CA bundles next to them).
constexpr const char* k_overview_certificate_keys[] = {"tls.crt", "ca.crt", "next-ca.crt", "previous-ca.crt"};

const Json& overview_object(const Json& object, const char* key) {
  static const Json empty = Json::object();
  return object.is_object() && object.contains(key) && object[key].is_object() ? object[key] : empty;
}

std::string overview_text(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

void put_overview_text(Json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

Json overview_conditions(const Json& status) {
  Json out = Json::array();
  if (!status.contains("conditions") || !status["conditions"].is_array()) return out;
  for (const auto& condition : status["conditions"]) {
    if (!condition.is_object()) continue;
    Json entry = {{"type", overview_text(condition, "type")}, {"status", overview_text(condition, "status")}};
    put_overview_text(entry, "reason", overview_text(condition, "reason"));
    put_overview_text(entry, "message", overview_text(condition, "message"));
    out.push_back(std::move(entry));
  }
  return out;
}

Json overview_lease(const ClusterView& view, TimePoint now) {
  if (view.lease == nullptr) return nullptr;
  const Json& spec = overview_object(*view.lease, "spec");
  Json out = {{"holder", overview_text(spec, "holderIdentity")}};
  std::string renewed = overview_text(spec, "renewTime");
  put_overview_text(out, "renewTime", renewed);
  if (auto at = parse_time(renewed)) {
    auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *at);
    out["renewedSecondsAgo"] = std::max<long>(0, static_cast<long>(age.count()));
    long duration = spec.value("leaseDurationSeconds", 0L);
    out["expired"] = age.count() > duration;
  }
  put_overview_text(out, "synchronousStandbys", annotation_of(*view.lease, k_sync_quorum_annotation));
  put_overview_text(out, "timeline", annotation_of(*view.lease, k_timeline_annotation));
  return out;
}

Json overview_instance(const Instance& instance, const std::optional<Lsn>& primary_lsn,
                       const std::string& primary, const FencedInstances& fenced, TimePoint now) {
  Json out = {{"name", instance.name}, {"ready", instance.ready()}, {"fenced", fenced.fences(instance.name)}};
  if (instance.pvc != nullptr)
    put_overview_text(out, "volume", overview_text(overview_object(*instance.pvc, "status"), "phase"));
  if (instance.pod == nullptr) {
    out["role"] = "stopped";
    out["pod"] = "none";
    return out;
  }
  const Json& pod = *instance.pod;
  const Json& status = overview_object(pod, "status");
  std::string role = annotation_of(pod, k_instance_role_annotation);
  out["role"] = role.empty() ? "unknown" : role;
  out["pod"] = is_terminating(pod) ? "Terminating" : overview_text(status, "phase");
  put_overview_text(out, "node", overview_text(overview_object(pod, "spec"), "nodeName"));
  put_overview_text(out, "podIP", overview_text(status, "podIP"));
  put_overview_text(out, "timeline", annotation_of(pod, k_timeline_annotation));
  put_overview_text(out, "currentLSN", annotation_of(pod, k_current_lsn_annotation));
  put_overview_text(out, "receivedLSN", annotation_of(pod, k_received_lsn_annotation));
  put_overview_text(out, "replayLSN", annotation_of(pod, k_replay_lsn_annotation));
  if (std::string streaming = annotation_of(pod, k_streaming_annotation); !streaming.empty())
    out["streaming"] = streaming == "true";
  auto replayed = Lsn::parse(annotation_of(pod, k_replay_lsn_annotation));
  if (primary_lsn && replayed && instance.name != primary)
    out["lagBytes"] = primary_lsn->value() > replayed->value() ? primary_lsn->value() - replayed->value() : 0;
  put_overview_text(out, "error", annotation_of(pod, k_instance_error_annotation));
  put_overview_text(out, "pendingRestart", annotation_of(pod, k_pending_restart_annotation));
  if (auto reported = parse_time(annotation_of(pod, k_reported_at_annotation))) {
    auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *reported);
    out["reportedSecondsAgo"] = std::max<long>(0, static_cast<long>(age.count()));
    out["reportStale"] = age > k_report_freshness;
  }
  long restarts = 0;
  if (status.contains("containerStatuses") && status["containerStatuses"].is_array())
    for (const auto& container : status["containerStatuses"])
      if (container.is_object()) restarts += container.value("restartCount", 0L);
  out["restarts"] = restarts;
  return out;
}

// The primary's own report of its slots, standbys and archiver; null when it has none (yet).
Json overview_replication(const ClusterView& view, const std::string& primary) {
  const Instance* instance = view.find(primary);
  if (instance == nullptr || instance->pod == nullptr) return nullptr;
  std::string text = annotation_of(*instance->pod, k_replication_annotation);
  if (text.empty()) return nullptr;
  Json parsed = Json::parse(text, nullptr, false);
  return parsed.is_object() ? parsed : Json(nullptr);
}

Json overview_backups(const std::vector<Json>& backups, const std::string& cluster) {
  Json out = Json::array();
  for (const auto& backup : backups) {
    const Json& spec = overview_object(backup, "spec");
    if (overview_text(spec, "cluster") != cluster) continue;
    const Json& status = overview_object(backup, "status");
    Json entry = {{"name", overview_text(overview_object(backup, "metadata"), "name")},
                  {"method", spec.value("method", "pg_basebackup")}};
    put_overview_text(entry, "schedule", overview_text(spec, "schedule"));
    if (spec.value("suspend", false)) entry["suspended"] = true;
    put_overview_text(entry, "phase", overview_text(status, "phase"));
    put_overview_text(entry, "lastSuccessfulTime", overview_text(status, "lastSuccessfulTime"));
    put_overview_text(entry, "nextScheduleTime", overview_text(status, "nextScheduleTime"));
    if (status.contains("artifactCount")) entry["artifactCount"] = status["artifactCount"];
    for (const auto& condition : overview_conditions(status))
      if (condition.value("type", "") == "Ready") {
        entry["ready"] = condition.value("status", "") == "True";
        put_overview_text(entry, "message", condition.value("message", ""));
      }
    out.push_back(std::move(entry));
  }
  return out;
}

// Each distinct certificate once: the CA's copies in ca.crt keys of other
// Secrets (alone, or first in a bundle with its successor or predecessor)
// are the same certificate, named by the Secret seen first (in name order)
// unless one is the CA's own Secret.
Json overview_certificates(const ClusterView& view, TimePoint now) {
  Json out = Json::array();
  std::map<std::string, std::size_t> seen;  // serial and subject -> its entry
  for (const auto& [name, secret] : view.secrets) {
    const Json& data = overview_object(*secret, "data");
    for (const char* key : k_overview_certificate_keys) {
      std::string encoded = overview_text(data, key);
      if (encoded.empty()) continue;
      auto pem = model::base64_decode(encoded);
      std::optional<CertificateInfo> info = pem ? read_certificate(*pem) : std::nullopt;
      if (info) {
        std::string identity = info->serial + "/" + info->common_name;
        if (auto found = seen.find(identity); found != seen.end()) {
          if (name.ends_with("-ca")) {
            out[found->second]["secret"] = name;
            out[found->second]["key"] = key;
          }
          continue;
        }
        seen[identity] = out.size();
      }
      Json entry = {{"secret", name}, {"key", key}};
      if (!info) {
        entry["problem"] = pem ? "no PEM certificate in it" : "not base64";
        out.push_back(std::move(entry));
        continue;
      }
      entry["commonName"] = info->common_name;
      entry["serial"] = info->serial;
      entry["isCA"] = info->is_ca;
      if (!info->dns_names.empty()) entry["dnsNames"] = info->dns_names;
      entry["notBefore"] = format_time(info->not_before);
      entry["notAfter"] = format_time(info->not_after);
      auto left = std::chrono::duration_cast<std::chrono::hours>(info->not_after - now);
      entry["expiresInDays"] = static_cast<long>(left.count() / 24);
      entry["expired"] = info->not_after <= now;
      out.push_back(std::move(entry));
    }
  }
  return out;
}

}  // namespace

Json cluster_overview(const OverviewInputs& inputs) {
  const Json& cluster = *inputs.cluster;
  const Json& metadata = overview_object(cluster, "metadata");
  const Json& spec = overview_object(cluster, "spec");
  const Json& status = overview_object(cluster, "status");
  std::string name = overview_text(metadata, "name");
  ClusterView view = observe_cluster(name, inputs.children);
  std::string primary = overview_text(status, "currentPrimary");

  Json summary = {{"namespace", overview_text(metadata, "namespace")},
                  {"name", name},
                  {"instances", spec.value("instances", 1L)},
                  {"readyInstances", status.value("readyInstances", 0L)}};
  put_overview_text(summary, "phase", overview_text(status, "phase"));
  put_overview_text(summary, "phaseReason", overview_text(status, "phaseReason"));
  put_overview_text(summary, "image", overview_text(spec, "imageName"));
  put_overview_text(summary, "currentPrimary", primary);
  put_overview_text(summary, "targetPrimary", overview_text(status, "targetPrimary"));
  if (status.contains("configuration") && status["configuration"].is_object())
    summary["configuration"] = status["configuration"];
  // spec.managed as the pass last copied it from the primary's report.
  for (const auto& [from, to] :
       {std::pair<const char*, const char*>{"managedRolesStatus", "managedRoles"},
        std::pair<const char*, const char*>{"managedDatabasesStatus", "managedDatabases"}})
    if (status.contains(from) && status[from].is_object()) summary[to] = status[from];
  auto hibernation = parse_hibernation(annotation_text(cluster, k_hibernation_annotation));
  summary["hibernation"] = hibernation.value ? "on" : "off";
  auto fenced = parse_fenced_instances(annotation_text(cluster, k_fenced_instances_annotation));
  if (fenced.value.all) {
    summary["fencedInstances"] = Json::array({"*"});
  } else {
    summary["fencedInstances"] = Json(fenced.value.names);
  }
  summary["conditions"] = overview_conditions(status);

  std::optional<Lsn> primary_lsn;
  if (const Instance* instance = view.find(primary); instance != nullptr && instance->pod != nullptr)
    primary_lsn = Lsn::parse(annotation_of(*instance->pod, k_current_lsn_annotation));
  Json instances = Json::array();
  for (const auto& [serial, instance] : view.instances)
    instances.push_back(overview_instance(instance, primary_lsn, primary, fenced.value, inputs.now));

  return {{"cluster", summary},
          {"primaryLease", overview_lease(view, inputs.now)},
          {"instances", instances},
          {"replication", overview_replication(view, primary)},
          {"backups", overview_backups(inputs.backups, name)},
          {"certificates", overview_certificates(view, inputs.now)}};
}

}  // namespace opctl::kinds::cluster
