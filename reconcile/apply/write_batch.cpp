#include "apply/write_batch.hpp"

#include <algorithm>

namespace opctl::apply {

std::string resource_version(const model::Json& object) {
  auto pointer = "/metadata/resourceVersion"_json_pointer;
  return object.contains(pointer) && object.at(pointer).is_string() ? object.at(pointer).get<std::string>()
                                                                    : "";
}

const kube::ResourceInfo* BatchKinds::find(const model::GroupVersionKind& gvk) {
  auto found = found_.find(gvk);
  if (found == found_.end()) found = found_.emplace(gvk, mapper_.find(gvk)).first;
  return found->second ? &*found->second : nullptr;
}

void OutcomeLog::record(ObjectOutcome outcome) {
  report_.outcomes.push_back(std::move(outcome));
  if (listener_) listener_(report_.outcomes.back());
}

WriteOutcome apply_outcome(const kube::ApiResult& result, const model::Json* before) {
  if (!result.ok()) {
    std::string message = result.status.describe();
    if (result.status.reason == kube::ApiReason::conflict)
      message +=
          " (another field manager changed these fields: run with --force-conflicts to take them back, "
          "or stop setting them in git)";
    return {Action::failed, std::move(message)};
  }
  if (before == nullptr) return {Action::created, ""};
  bool moved = resource_version(*before) != resource_version(result.object);
  return {moved ? Action::configured : Action::unchanged, ""};
}

kube::HttpRequest guarded_delete(const kube::ApiClient& client, const kube::ResourceInfo& resource,
                                 const model::Json& live, const std::string& propagation) {
  const model::Json& metadata = live.at("metadata");
  kube::DeleteOptions options;
  options.propagation_policy = propagation;
  options.precondition_uid = metadata.value("uid", "");
  return client.delete_request(resource, metadata.value("namespace", ""), metadata.value("name", ""),
                               options);
}

WriteOutcome delete_outcome(const kube::ApiResult& result) {
  if (result.ok() || result.status.reason == kube::ApiReason::not_found) return {Action::pruned, ""};
  return {Action::failed, result.status.describe()};
}

std::size_t stream_writes(kube::ApiClient& client, std::size_t count,
                          const std::function<kube::HttpRequest(std::size_t)>& make,
                          const std::function<void(std::size_t, kube::ApiResult&)>& take,
                          const std::function<bool()>& stop) {
  std::size_t sent = 0;
  while (sent < count) {
    if (stop && stop()) break;
    auto to = std::min(count, sent + kube::ApiClient::k_write_chunk);
    std::vector<kube::HttpRequest> chunk;
    chunk.reserve(to - sent);
    for (auto i = sent; i < to; ++i)
      chunk.push_back(make(i));
    auto results = client.execute(chunk);
    for (std::size_t i = 0; i < results.size(); ++i)
      take(sent + i, results[i]);
    sent = to;
  }
  return sent;
}

std::vector<kube::ApiResult> send_writes(kube::ApiClient& client,
                                         const std::vector<kube::HttpRequest>& requests,
                                         const std::function<bool()>& stop) {
  std::vector<kube::ApiResult> results;
  results.reserve(requests.size());
  stream_writes(
      client, requests.size(), [&](std::size_t i) { return requests[i]; },
      [&](std::size_t, kube::ApiResult& result) { results.push_back(std::move(result)); }, stop);
  return results;
}

}  // namespace opctl::apply
