#include "instance/primary_lease.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <ctime>

#include "kinds/cluster/cluster_names.hpp"
#include "kube/api_error.hpp"
#include "kube/rest_mapper.hpp"

namespace opctl::instance {
namespace {

using model::Json;
namespace names = kinds::cluster;

std::string annotation(const Json& lease, const char* key) {
  const Json& annotations = lease.value("/metadata/annotations"_json_pointer, Json::object());
  auto found = annotations.find(key);
  return found != annotations.end() && found->is_string() ? found->get<std::string>() : "";
}

// "2:db-2,db-3" -> {2, {db-2, db-3}}; anything else: no quorum.
SyncQuorum parse_quorum(const std::string& text) {
  SyncQuorum quorum;
  auto colon = text.find(':');
  if (colon == std::string::npos) return quorum;
  quorum.required = std::atoi(text.substr(0, colon).c_str());
  std::string rest = text.substr(colon + 1);
  for (std::size_t start = 0; start < rest.size();) {
    auto comma = rest.find(',', start);
    if (comma == std::string::npos) comma = rest.size();
    if (comma > start) quorum.names.push_back(rest.substr(start, comma - start));
    start = comma + 1;
  }
  if (quorum.names.empty()) quorum.required = 0;
  return quorum;
}

}  // namespace

LeaseRecord lease_record(const Json& lease) {
  LeaseRecord record;
  const Json& spec = lease.value("spec", Json::object());
  record.holder = spec.value("holderIdentity", "");
  record.renew_time = spec.value("renewTime", "");
  record.duration_seconds = spec.value("leaseDurationSeconds", 0);
  record.transitions = spec.value("leaseTransitions", 0);
  record.resource_version = lease.value("/metadata/resourceVersion"_json_pointer, "");
  record.quorum = parse_quorum(annotation(lease, names::k_sync_quorum_annotation));
  record.timeline = annotation(lease, names::k_timeline_annotation);
  return record;
}

void put_record(Json& lease, const LeaseRecord& record) {
  Json& spec = lease["spec"];
  auto set_or_erase = [&](const char* key, Json value, bool present) {
    if (present)
      spec[key] = std::move(value);
    else
      spec.erase(key);
  };
  set_or_erase("holderIdentity", record.holder, !record.holder.empty());
  set_or_erase("renewTime", record.renew_time, !record.renew_time.empty());
  if (spec.contains("renewTime") && !spec.contains("acquireTime")) spec["acquireTime"] = record.renew_time;
  set_or_erase("leaseDurationSeconds", record.duration_seconds, record.duration_seconds > 0);
  spec["leaseTransitions"] = record.transitions;
  lease["metadata"]["resourceVersion"] = record.resource_version;
  Json& annotations = lease["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = Json::object();
  if (record.quorum.required > 0)
    annotations[names::k_sync_quorum_annotation] =
        fmt::format("{}:{}", record.quorum.required, fmt::join(record.quorum.names, ","));
  else
    annotations.erase(names::k_sync_quorum_annotation);
  if (!record.timeline.empty())
    annotations[names::k_timeline_annotation] = record.timeline;
  else
    annotations.erase(names::k_timeline_annotation);
}

KubeLeaseStore::KubeLeaseStore(std::unique_ptr<kube::HttpTransport> transport, std::string namespace_name,
                               std::string name)
    : transport_(std::move(transport)), namespace_name_(std::move(namespace_name)), name_(std::move(name)) {}

std::string KubeLeaseStore::path() const {
  return fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}",
                     kube::url_escape(namespace_name_), kube::url_escape(name_));
}

std::optional<LeaseRecord> KubeLeaseStore::read() {
  kube::HttpRequest get;
  get.path = path();
  auto response = transport_->send(get);
  auto status = kube::decode_status(response, "GET " + get.path);
  if (status.reason == kube::ApiReason::not_found) return std::nullopt;
  if (!status.ok()) throw kube::ApiError(status);
  last_ = Json::parse(response.body);
  return lease_record(last_);
}

WriteOutcome KubeLeaseStore::write(LeaseRecord& record, std::string& error) {
  Json lease = last_.is_object() ? last_ : Json{{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}};
  bool new_holder = lease_record(lease).holder != record.holder;
  if (new_holder && lease.contains("spec")) lease["spec"].erase("acquireTime");
  put_record(lease, record);
  kube::HttpRequest put;
  put.method = "PUT";
  put.path = path();
  put.content_type = "application/json";
  put.body = lease.dump();
  kube::HttpResponse response;
  try {
    response = transport_->send(put);
  } catch (const Error& failure) {
    error = failure.what();
    return WriteOutcome::failed;
  }
  auto status = kube::decode_status(response, "PUT " + put.path);
  if (status.reason == kube::ApiReason::conflict) {
    error = "the Lease changed since it was read";
    return WriteOutcome::conflict;
  }
  if (!status.ok()) {
    error = status.describe();
    return WriteOutcome::failed;
  }
  last_ = Json::parse(response.body);
  record = lease_record(last_);
  return WriteOutcome::written;
}

}  // namespace opctl::instance
