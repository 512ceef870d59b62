#include "apply/diff_pass.hpp"

#include "apply/write_batch.hpp"
#include "diff/field_ownership.hpp"
#include "diff/local_apply.hpp"
#include "diff/normalize.hpp"

namespace opctl::apply {

using model::Json;
using model::Object;

namespace {

class DiffPass {
 public:
  DiffPass(kube::ApiClient& client, const std::vector<Object>& desired, const LiveState& live,
           const DiffPassOptions& options)
      : client_(client), desired_(desired), live_(live), options_(options) {
    result_.diffs.resize(desired.size());
  }

  DiffPassResult run() {
    for (std::size_t i = 0; i < desired_.size(); ++i)
      decide_from_live(i);
    std::vector<kube::ApiResult> responses = dry_run(false);
    std::vector<std::string> conflicts = retry_conflicts(responses);
    for (std::size_t n = 0; n < asked_.size(); ++n)
      compare_with(n, responses[n], conflicts[n]);
    return std::move(result_);
  }

 private:
  diff::ObjectDiff compare(std::size_t i, const Json& before, const Json& after) const {
    const Object& object = desired_[i];
    return diff::compare_objects(object.key(), object.api_version(), object.location(), before, after,
                                 options_.compare);
  }

  // The comparison itself failed: shown with the error, live as it is.
  void fail(std::size_t i, const Json& live, const std::string& error) {
    result_.diffs[i] = compare(i, live, live);
    result_.diffs[i].change = diff::Change::failed;
    result_.diffs[i].changed_paths.clear();
    result_.diffs[i].error = error;
  }

  // Step 1: objects the live state decides (no-op applies, ignored objects,
  // kinds not served yet); the rest are queued for a dry run.
  void decide_from_live(std::size_t i) {
    const Object& original = desired_[i];
    model::PackedAfter packed(original);
    if (auto unreadable = live_.unreadable.find(original.key()); unreadable != live_.unreadable.end()) {
      fail(i, Json(), "cannot read the live object: " + unreadable->second);
      return;
    }
    const Json* current = live_.find(original.key());
    bool settled = live_.settled.contains(original.key());  // decided as it was read
    if (settled || (current != nullptr && decided_from_live(original, *current, options_))) {
      result_.diffs[i] = unchanged(i);
      ++result_.fast_path;
      return;
    }
    Object object = original;  // a copy for the dry run only: at N = 5000, copies of all add tens of MiB
    diff::carry_source_annotation(object, current);
    const auto* kind = kinds_.find(object.gvk());
    if (kind == nullptr) {
      // Its CRD is in the same set and not created yet: show the object as written.
      result_.diffs[i] = compare(i, Json(), object.body());
      result_.diffs[i].local_comparison = true;
      return;
    }
    asked_.push_back(i);
    asked_objects_.push_back(std::move(object));
    asked_kinds_.push_back(kind);
  }

  // An unchanged object keeps no before/after: nothing renders them, and
  // normalised copies of every object of a big set would double the memory.
  diff::ObjectDiff unchanged(std::size_t i) const {
    const Object& object = desired_[i];
    diff::ObjectDiff result;
    result.key = object.key();
    result.api_version = object.api_version();
    result.location = object.location();
    result.change = diff::Change::unchanged;
    return result;
  }

  // Step 2: a server-side apply dry run of every queued object.
  std::vector<kube::ApiResult> dry_run(bool force) {
    kube::ApplyOptions apply{options_.field_manager, force, true};
    std::vector<kube::HttpRequest> requests;
    for (std::size_t n = 0; n < asked_objects_.size(); ++n)
      requests.push_back(client_.apply_request(*asked_kinds_[n], asked_objects_[n], apply));
    result_.dry_runs += requests.size();
    return client_.execute(requests);
  }

  // Drift by another field manager makes the dry run conflict. Ask again with
  // force, which shows what taking the fields back would do, and say so.
  std::vector<std::string> retry_conflicts(std::vector<kube::ApiResult>& responses) {
    std::vector<std::string> conflicts(asked_.size());
    std::vector<std::size_t> conflicted;
    std::vector<kube::HttpRequest> forced;
    kube::ApplyOptions forced_dry_run{options_.field_manager, true, true};
    for (std::size_t n = 0; n < asked_.size(); ++n) {
      if (responses[n].status.reason != kube::ApiReason::conflict) continue;
      conflicted.push_back(n);
      forced.push_back(client_.apply_request(*asked_kinds_[n], asked_objects_[n], forced_dry_run));
    }
    auto forced_responses = client_.execute(forced);
    result_.dry_runs += forced.size();
    for (std::size_t c = 0; c < conflicted.size(); ++c) {
      conflicts[conflicted[c]] = responses[conflicted[c]].status.message;
      responses[conflicted[c]] = std::move(forced_responses[c]);
    }
    return conflicts;
  }

  // Step 3: the would-be object from the dry run, or computed here where the
  // dry run is Forbidden (read-only credentials) or the namespace is created
  // by this same set.
  void compare_with(std::size_t n, const kube::ApiResult& response, const std::string& conflict) {
    std::size_t i = asked_[n];
    const Object& object = asked_objects_[n];
    const Json* current = live_.find(object.key());
    Json before = current ? *current : Json();
    bool local =
        !response.ok() && (response.status.reason == kube::ApiReason::forbidden ||
                           (current == nullptr && response.status.reason == kube::ApiReason::not_found));
    if (!response.ok() && !local) {
      fail(i, before, response.status.describe());
      return;
    }
    Json after = response.object;
    if (local)
      after = current ? diff::local_apply(*current, object.body(), options_.field_manager) : object.body();
    result_.diffs[i] = compare(i, before, after);
    result_.diffs[i].local_comparison = local;
    result_.diffs[i].conflict = conflict;
    if (result_.diffs[i].change == diff::Change::unchanged) {
      result_.diffs[i].before = Json();
      result_.diffs[i].after = Json();
    }
  }

  kube::ApiClient& client_;
  const std::vector<Object>& desired_;
  const LiveState& live_;
  const DiffPassOptions& options_;
  std::vector<std::size_t> asked_;     // indices sent to the server's dry run
  std::vector<Object> asked_objects_;  // those objects, with the source annotation live already has
  std::vector<const kube::ResourceInfo*> asked_kinds_;  // and their kinds, from kinds_
  BatchKinds kinds_{client_.mapper()};
  DiffPassResult result_;
};

}  // namespace

bool decided_from_live(const Object& desired, const Json& live, const DiffPassOptions& options) {
  if (desired.annotation(k_diff_ignore_annotation) == k_diff_ignore_value) return true;
  Json body =
      desired.body_copy();  // not body(): LIST pages may be read concurrently (ListOptions::keep_item)
  diff::carry_source_annotation(body, &live);
  return diff::apply_is_noop(body, live, options.field_manager);
}

LiveStateOptions live_state_for_diff(const DiffPassOptions& options, LiveStateOptions read) {
  read.managed_fields_of = options.field_manager;
  read.ignore_rules = options.compare.ignore_rules;
  read.keep_whole = [options](const Object& desired, const Json& live) {
    return !decided_from_live(desired, live, options);
  };
  // Settled objects were not kept whole, so decided_from_live held for them;
  // settled as a pass settles them, `opctl status` plans the next pass from them.
  read.settles =
      [plan = plan::PlanOptions{options.field_manager, options.compare.ignore_rules, false, false, {}}](
          const Object& desired, const Json& live) { return plan::settles(desired, live, plan); };
  return read;
}

DiffPassResult diff_against_live(kube::ApiClient& client, const std::vector<Object>& desired,
                                 const LiveState& live, const DiffPassOptions& options) {
  return DiffPass(client, desired, live, options).run();
}

}  // namespace opctl::apply
