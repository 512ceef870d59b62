#include "kinds/child_writer.hpp"

#include <map>

#include "diff/field_ownership.hpp"
#include "plan/apply_order.hpp"
#include "plan/prune_set.hpp"

namespace opctl::kinds {
namespace {

using model::Json;

struct PendingApply {
  Json body;
  const Json* live = nullptr;  // before the apply; null when absent
};

const Json* find_live(const std::vector<Json>& live, const model::ObjectKey& key) {
  for (const auto& child : live)
    if (plan::key_of_live(child) == key) return &child;
  return nullptr;
}

}  // namespace

void ChildWriter::write(const ReconcileResult& result, const std::vector<Json>& live) {
  apply_children(result, live);
  delete_children(result, live);
}

void ChildWriter::apply_children(const ReconcileResult& result, const std::vector<Json>& live) {
  std::map<int, std::vector<PendingApply>> by_rank;
  std::map<int, std::vector<kube::HttpRequest>> requests;
  for (const auto& child : result.children) {
    PreparedChild prepared = prepare_child(child, parent_);
    auto key = plan::key_of_live(prepared.body);
    std::string api_version = prepared.body.value("apiVersion", "");
    auto gvk = model::GroupVersionKind::from(api_version, prepared.body.value("kind", ""));
    desired_.insert(key);
    auto resource = client_.mapper().find(gvk);
    if (prepared.problem.empty() && (!resource || !resource->namespaced))
      prepared.problem =
          resource ? "children must be namespaced objects" : "the server does not serve this kind";
    if (!prepared.problem.empty()) {
      record(key, api_version, apply::Action::failed, prepared.problem);
      continue;
    }
    const Json* before = find_live(live, key);
    if (before != nullptr &&
        (prepared.create_only || diff::apply_is_noop(prepared.body, *before, k_controller_field_manager))) {
      record(key, api_version, apply::Action::unchanged, "");
      continue;
    }
    int rank = plan::kind_rank(gvk);
    requests[rank].push_back(
        client_.apply_request(*resource, model::Object(prepared.body), controller_apply()));
    by_rank[rank].push_back({std::move(prepared.body), before});
  }
  for (auto& [rank, pending] : by_rank) {
    auto results = apply::send_writes(client_, requests[rank], options_.stop_requested);
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const Json& body = pending[i].body;
      auto outcome = i < results.size()
                         ? apply::apply_outcome(results[i], pending[i].live)
                         : apply::WriteOutcome{apply::Action::skipped, "not applied: interrupted"};
      record(plan::key_of_live(body), body.value("apiVersion", ""), outcome.action,
             std::move(outcome.message));
    }
  }
}

void ChildWriter::delete_children(const ReconcileResult& result, const std::vector<Json>& live) {
  std::map<std::string, std::pair<const Json*, std::string>> doomed;  // uid -> object, reason
  if (!result.keep_unlisted)
    for (const auto& child : live)
      if (controlled_by(child, parent_.uid) && !desired_.contains(plan::key_of_live(child)))
        doomed[child["metadata"].value("uid", "")] = {&child, "no longer wanted by " + options_.parent_label};
  for (const auto& object : result.deletions) {
    std::string reason = object["metadata"]
                             .value("annotations", Json::object())
                             .value(k_deletion_reason_annotation, "deleted by " + options_.parent_label);
    doomed[object["metadata"].value("uid", "")] = {&object, reason};
  }
  std::vector<kube::HttpRequest> deletes;
  std::vector<std::pair<const Json*, std::string>> sent;
  for (const auto& [uid, entry] : doomed) {
    const Json& object = *entry.first;
    if (object["metadata"].contains("deletionTimestamp")) continue;
    auto gvk = model::GroupVersionKind::from(object.value("apiVersion", ""), object.value("kind", ""));
    auto resource = client_.mapper().find(gvk);
    if (!resource) continue;
    deletes.push_back(apply::guarded_delete(client_, *resource, object, options_.delete_propagation));
    sent.push_back(entry);
  }
  auto results = apply::send_writes(client_, deletes, options_.stop_requested);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const Json& object = *sent[i].first;
    auto outcome = i < results.size()
                       ? apply::delete_outcome(results[i])
                       : apply::WriteOutcome{apply::Action::skipped, "not deleted: interrupted"};
    record(plan::key_of_live(object), object.value("apiVersion", ""), outcome.action,
           outcome.action == apply::Action::pruned ? sent[i].second : std::move(outcome.message));
  }
}

void ChildWriter::record(const model::ObjectKey& key, const std::string& api_version, apply::Action action,
                         std::string message) {
  if (action == apply::Action::failed) failed_ = true;
  if (!options_.report_unchanged && action == apply::Action::unchanged) return;
  log_.record({key,
               api_version,
               {},
               options_.wave,
               action,
               message.empty() ? "owned by " + options_.parent_label : std::move(message),
               {}});
}

}  // namespace opctl::kinds
