#include "kinds/cluster/cluster_overview.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kinds/cluster/certificate_summary.hpp"
#include "kinds/cluster/cluster_annotations.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_view.hpp"
#include "kinds/cluster/lsn.hpp"
#include "model/base64.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

// The keys of a Secret that hold certificates (kubernetes.io/tls and the CA bundles next to them).
constexpr const char* k_certificate_keys[] = {"tls.crt", "ca.crt"};

const Json& object_at(const Json& object, const char* key) {
  static const Json empty = Json::object();
  return object.is_object() && object.contains(key) && object[key].is_object() ? object[key] : empty;
}

std::string text_at(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

void put_text(Json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

Json conditions_of(const Json& status) {
  Json out = Json::array();
  if (!status.contains("conditions") || !status["conditions"].is_array()) return out;
  for (const auto& condition : status["conditions"]) {
    if (!condition.is_object()) continue;
    Json entry = {{"type", text_at(condition, "type")}, {"status", text_at(condition, "status")}};
    put_text(entry, "reason", text_at(condition, "reason"));
    put_text(entry, "message", text_at(condition, "message"));
    out.push_back(std::move(entry));
  }
  return out;
}

Json lease_of(const ClusterView& view, TimePoint now) {
  if (view.lease == nullptr) return nullptr;
  const Json& spec = object_at(*view.lease, "spec");
  Json out = {{"holder", text_at(spec, "holderIdentity")}};
  std::string renewed = text_at(spec, "renewTime");
  put_text(out, "renewTime", renewed);
  if (auto at = parse_time(renewed)) {
    auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *at);
    out["renewedSecondsAgo"] = std::max<long>(0, static_cast<long>(age.count()));
    long duration = spec.value("leaseDurationSeconds", 0L);
    out["expired"] = age.count() > duration;
  }
  put_text(out, "synchronousStandbys", annotation_of(*view.lease, k_sync_quorum_annotation));
  put_text(out, "timeline", annotation_of(*view.lease, k_timeline_annotation));
  return out;
}

Json instance_of(const Instance& instance, const std::optional<Lsn>& primary_lsn, const std::string& primary,
                 const FencedInstances& fenced, TimePoint now) {
  Json out = {{"name", instance.name}, {"ready", instance.ready()}, {"fenced", fenced.fences(instance.name)}};
  if (instance.pvc != nullptr) put_text(out, "volume", text_at(object_at(*instance.pvc, "status"), "phase"));
  if (instance.pod == nullptr) {
    out["role"] = "stopped";
    out["pod"] = "none";
    return out;
  }
  const Json& pod = *instance.pod;
  const Json& status = object_at(pod, "status");
  std::string role = annotation_of(pod, k_instance_role_annotation);
  out["role"] = role.empty() ? "unknown" : role;
  out["pod"] = is_terminating(pod) ? "Terminating" : text_at(status, "phase");
  put_text(out, "node", text_at(object_at(pod, "spec"), "nodeName"));
  put_text(out, "podIP", text_at(status, "podIP"));
  put_text(out, "timeline", annotation_of(pod, k_timeline_annotation));
  put_text(out, "currentLSN", annotation_of(pod, k_current_lsn_annotation));
  put_text(out, "receivedLSN", annotation_of(pod, k_received_lsn_annotation));
  put_text(out, "replayLSN", annotation_of(pod, k_replay_lsn_annotation));
  if (std::string streaming = annotation_of(pod, k_streaming_annotation); !streaming.empty())
    out["streaming"] = streaming == "true";
  auto replayed = Lsn::parse(annotation_of(pod, k_replay_lsn_annotation));
  if (primary_lsn && replayed && instance.name != primary)
    out["lagBytes"] = primary_lsn->value() > replayed->value() ? primary_lsn->value() - replayed->value() : 0;
  put_text(out, "error", annotation_of(pod, k_instance_error_annotation));
  put_text(out, "pendingRestart", annotation_of(pod, k_pending_restart_annotation));
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
Json replication_of(const ClusterView& view, const std::string& primary) {
  const Instance* instance = view.find(primary);
  if (instance == nullptr || instance->pod == nullptr) return nullptr;
  std::string text = annotation_of(*instance->pod, k_replication_annotation);
  if (text.empty()) return nullptr;
  Json parsed = Json::parse(text, nullptr, false);
  return parsed.is_object() ? parsed : Json(nullptr);
}

Json backups_of(const std::vector<Json>& backups, const std::string& cluster) {
  Json out = Json::array();
  for (const auto& backup : backups) {
    const Json& spec = object_at(backup, "spec");
    if (text_at(spec, "cluster") != cluster) continue;
    const Json& status = object_at(backup, "status");
    Json entry = {{"name", text_at(object_at(backup, "metadata"), "name")},
                  {"method", spec.value("method", "pg_basebackup")}};
    put_text(entry, "schedule", text_at(spec, "schedule"));
    if (spec.value("suspend", false)) entry["suspended"] = true;
    put_text(entry, "phase", text_at(status, "phase"));
    put_text(entry, "lastSuccessfulTime", text_at(status, "lastSuccessfulTime"));
    put_text(entry, "nextScheduleTime", text_at(status, "nextScheduleTime"));
    if (status.contains("artifactCount")) entry["artifactCount"] = status["artifactCount"];
    for (const auto& condition : conditions_of(status))
      if (condition.value("type", "") == "Ready") {
        entry["ready"] = condition.value("status", "") == "True";
        put_text(entry, "message", condition.value("message", ""));
      }
    out.push_back(std::move(entry));
  }
  return out;
}

Json certificates_of(const ClusterView& view, TimePoint now) {
  Json out = Json::array();
  for (const auto& [name, secret] : view.secrets) {
    const Json& data = object_at(*secret, "data");
    for (const char* key : k_certificate_keys) {
      std::string encoded = text_at(data, key);
      if (encoded.empty()) continue;
      Json entry = {{"secret", name}, {"key", key}};
      auto pem = model::base64_decode(encoded);
      ParsedCertificates parsed = pem ? summarize_certificates(*pem) : ParsedCertificates{{}, "not base64"};
      put_text(entry, "problem", parsed.problem);
      if (!parsed.certificates.empty()) {
        // The first certificate of a bundle is the one the key belongs to (or the CA itself).
        const CertificateSummary& first = parsed.certificates.front();
        entry["subject"] = first.subject;
        entry["issuer"] = first.issuer;
        entry["isCA"] = first.is_ca;
        if (!first.dns_names.empty()) entry["dnsNames"] = first.dns_names;
        entry["notBefore"] = format_time(first.not_before);
        entry["notAfter"] = format_time(first.not_after);
        auto left = std::chrono::duration_cast<std::chrono::hours>(first.not_after - now);
        entry["expiresInDays"] = static_cast<long>(left.count() / 24);
        entry["expired"] = first.not_after <= now;
      }
      out.push_back(std::move(entry));
    }
  }
  return out;
}

}  // namespace

Json cluster_overview(const OverviewInputs& inputs) {
  const Json& cluster = *inputs.cluster;
  const Json& metadata = object_at(cluster, "metadata");
  const Json& spec = object_at(cluster, "spec");
  const Json& status = object_at(cluster, "status");
  std::string name = text_at(metadata, "name");
  ClusterView view = observe_cluster(name, inputs.children);
  std::string primary = text_at(status, "currentPrimary");

  Json summary = {{"namespace", text_at(metadata, "namespace")},
                  {"name", name},
                  {"instances", spec.value("instances", 1L)},
                  {"readyInstances", status.value("readyInstances", 0L)}};
  put_text(summary, "phase", text_at(status, "phase"));
  put_text(summary, "phaseReason", text_at(status, "phaseReason"));
  put_text(summary, "image", text_at(spec, "imageName"));
  put_text(summary, "currentPrimary", primary);
  put_text(summary, "targetPrimary", text_at(status, "targetPrimary"));
  if (status.contains("configuration") && status["configuration"].is_object())
    summary["configuration"] = status["configuration"];
  auto hibernation = parse_hibernation(annotation_text(cluster, k_hibernation_annotation));
  summary["hibernation"] = hibernation.value ? "on" : "off";
  auto fenced = parse_fenced_instances(annotation_text(cluster, k_fenced_instances_annotation));
  if (fenced.value.all) {
    summary["fencedInstances"] = Json::array({"*"});
  } else {
    summary["fencedInstances"] = Json(fenced.value.names);
  }
  summary["conditions"] = conditions_of(status);

  std::optional<Lsn> primary_lsn;
  if (const Instance* instance = view.find(primary); instance != nullptr && instance->pod != nullptr)
    primary_lsn = Lsn::parse(annotation_of(*instance->pod, k_current_lsn_annotation));
  Json instances = Json::array();
  for (const auto& [serial, instance] : view.instances)
    instances.push_back(instance_of(instance, primary_lsn, primary, fenced.value, inputs.now));

  return {{"cluster", summary},
          {"primaryLease", lease_of(view, inputs.now)},
          {"instances", instances},
          {"replication", replication_of(view, primary)},
          {"backups", backups_of(inputs.backups, name)},
          {"certificates", certificates_of(view, inputs.now)}};
}

}  // namespace opctl::kinds::cluster
