#include "apply/diff_pass.hpp"

#include "diff/field_ownership.hpp"
#include "diff/local_apply.hpp"
#include "diff/normalize.hpp"

namespace opctl::apply {

using model::Json;
using model::Object;

void carry_source_annotation(Object& desired, const Json* live) {
  if (live == nullptr || desired.annotation(diff::k_source_annotation).empty()) return;
  Json::json_pointer pointer = Json::json_pointer("/metadata/annotations") / diff::k_source_annotation;
  if (live->contains(pointer) && live->at(pointer).is_string())
    desired.set_annotation(diff::k_source_annotation, live->at(pointer).get<std::string>());
}

DiffPassResult diff_against_live(kube::ApiClient& client, const std::vector<Object>& desired, const LiveState& live,
                                 const DiffPassOptions& options) {
  DiffPassResult result;
  result.diffs.resize(desired.size());
  std::vector<std::size_t> asked;
  std::vector<kube::HttpRequest> requests;
  std::vector<Object> compared(desired);
  kube::ApplyOptions dry_run{options.field_manager, false, true};
  for (std::size_t i = 0; i < desired.size(); ++i) {
    const Object& object = desired[i];
    const Json* current = live.find(object.key());
    carry_source_annotation(compared[i], current);
    bool ignored = object.annotation(k_diff_ignore_annotation) == "ignore";
    if (current != nullptr && (ignored || diff::apply_is_noop(compared[i].body(), *current, options.field_manager))) {
      result.diffs[i] = diff::compare_objects(object.key(), object.api_version(), object.location(), *current,
                                              *current, options.compare);
      ++result.fast_path;
      continue;
    }
    auto info = client.mapper().find(object.gvk());
    if (!info) {
      // Its CRD is in the same set and not created yet: show the object as written.
      result.diffs[i] = diff::compare_objects(object.key(), object.api_version(), object.location(), Json(),
                                              object.body(), options.compare);
      result.diffs[i].local_comparison = true;
      continue;
    }
    asked.push_back(i);
    requests.push_back(client.apply_request(*info, compared[i], dry_run));
  }
  auto responses = client.execute(requests);
  result.dry_runs = requests.size();
  // Drift by another field manager makes the dry run conflict. Ask again with
  // force, which shows what taking the fields back would do, and say so.
  std::vector<std::size_t> conflicted;
  std::vector<kube::HttpRequest> forced;
  kube::ApplyOptions forced_dry_run{options.field_manager, true, true};
  for (std::size_t n = 0; n < asked.size(); ++n) {
    if (responses[n].status.reason != kube::ApiReason::conflict) continue;
    conflicted.push_back(n);
    forced.push_back(client.apply_request(*client.mapper().find(compared[asked[n]].gvk()), compared[asked[n]],
                                          forced_dry_run));
  }
  std::vector<std::string> conflicts(asked.size());
  auto forced_responses = client.execute(forced);
  result.dry_runs += forced.size();
  for (std::size_t c = 0; c < conflicted.size(); ++c) {
    conflicts[conflicted[c]] = responses[conflicted[c]].status.message;
    responses[conflicted[c]] = std::move(forced_responses[c]);
  }
  for (std::size_t n = 0; n < asked.size(); ++n) {
    std::size_t i = asked[n];
    const Object& object = compared[i];
    const Json* current = live.find(object.key());
    Json before = current ? *current : Json();
    const auto& response = responses[n];
    bool local = false;
    Json after;
    if (response.ok()) {
      after = response.object;
    } else if (response.status.reason == kube::ApiReason::forbidden ||
               (current == nullptr && response.status.reason == kube::ApiReason::not_found)) {
      // Read-only credentials, or a namespace this same set creates.
      after = current ? diff::local_apply(*current, object.body(), options.field_manager) : object.body();
      local = true;
    } else {
      result.diffs[i] = diff::compare_objects(object.key(), object.api_version(), object.location(), before, before,
                                              options.compare);
      result.diffs[i].change = diff::Change::failed;
      result.diffs[i].error = response.status.describe();
      continue;
    }
    result.diffs[i] =
        diff::compare_objects(object.key(), object.api_version(), object.location(), before, after, options.compare);
    result.diffs[i].local_comparison = local;
    result.diffs[i].conflict = conflicts[n];
  }
  return result;
}

}  // namespace opctl::apply
