#include "kinds/kind_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "diff/field_ownership.hpp"
#include "kinds/conditions.hpp"
#include "kinds/owned_objects.hpp"
#include "kube/api_error.hpp"
#include "plan/apply_order.hpp"
#include "plan/applyset.hpp"

namespace opctl::kinds {
namespace {

using model::Json;
using SteadyClock = std::chrono::steady_clock;

constexpr std::chrono::seconds k_default_requeue{2};

kube::ApplyOptions controller_apply() {
  kube::ApplyOptions options;
  options.field_manager = k_controller_field_manager;
  options.force = true;  // a controller owns what it writes
  return options;
}

std::string condition_summary(const std::vector<Condition>& conditions) {
  const Condition* ready = nullptr;
  for (const auto& condition : conditions) {
    if (condition.type == "Degraded" && condition.status)
      return fmt::format("Degraded ({}): {}", condition.reason, condition.message);
    if (condition.type == "Ready") ready = &condition;
  }
  if (ready == nullptr) return "reconciled";
  if (ready->status) return ready->message.empty() ? "Ready" : "Ready: " + ready->message;
  return fmt::format("not Ready ({}): {}", ready->reason, ready->message);
}

bool condition_set(const std::vector<Condition>& conditions, const std::string& type) {
  return std::any_of(conditions.begin(), conditions.end(),
                     [&](const Condition& condition) { return condition.type == type && condition.status; });
}

std::string live_name(const Json& object) { return object["metadata"].value("name", ""); }

struct PendingApply {
  kube::HttpRequest request;
  Json body;
  const Json* live = nullptr;  // before the apply; null when absent
};

}  // namespace

struct KindRunner::Target {
  KindReconciler* reconciler = nullptr;
  model::ObjectKey key;
  std::string api_version;
  model::SourceLocation location;
  long wave = 0;
};

struct KindRunner::TargetState {
  bool ready = false;
  bool failed = false;  // Degraded, or the runner could not reconcile it
  bool gone = false;    // the parent no longer exists (or finished finalizing)
  std::optional<std::chrono::seconds> requeue;
  std::string summary;
  std::string emitted;  // the summary last shown
};

// One resource, one round: read, reconcile, write.
class KindRunner::ResourcePass {
 public:
  ResourcePass(KindRunner& runner, const Target& target, apply::PassReport& report, bool first_round)
      : runner_(runner), client_(runner.client_), target_(target), report_(report), first_round_(first_round) {}

  TargetState run() {
    auto info = client_.mapper().find(target_.reconciler->kind());
    if (!info) return failure(fmt::format("the server does not serve {}", target_.api_version));
    info_ = *info;
    auto live = client_.execute(client_.get_request(info_, target_.key.namespace_name, target_.key.name));
    if (live.status.reason == kube::ApiReason::not_found) return gone();
    if (!live.ok()) return failure("cannot read it: " + live.status.describe());
    observed_.parent = std::move(live.object);
    parent_ = ParentRef::of(observed_.parent);
    observed_.finalizing = observed_.parent["metadata"].contains("deletionTimestamp");
    if (observed_.finalizing && managed_finalizers(observed_.parent, k_controller_field_manager).empty())
      return gone();
    try {
      read_children();
      read_related();
    } catch (const Error& error) {
      return degrade("ReconcileError", error.what());
    }
    ReconcileResult result;
    try {
      result = target_.reconciler->reconcile(observed_, runner_.context_);
    } catch (const std::exception& error) {
      return degrade("ReconcileError", std::string("the reconciler failed: ") + error.what());
    }
    return write(result);
  }

 private:
  void read_children() {
    kube::ListOptions options;
    options.label_selector = std::string(k_owner_uid_label) + "=" + parent_.uid;
    for (const auto& gvk : target_.reconciler->child_kinds()) {
      auto info = client_.mapper().find(gvk);
      if (!info) throw Error(ErrorCategory::cluster, fmt::format("the server does not serve child kind {} {}",
                                                                 gvk.api_version(), gvk.kind));
      for (auto& child : client_.list(*info, parent_.namespace_name, options)) observed_.children.push_back(std::move(child));
    }
  }

  void read_related() {
    std::vector<kube::HttpRequest> gets;
    for (const auto& reference : target_.reconciler->related(observed_.parent)) {
      auto info = client_.mapper().find(reference.gvk);
      if (!info) continue;  // a kind the server does not serve has no objects
      gets.push_back(client_.get_request(*info, reference.namespace_name, reference.name));
    }
    for (auto& result : client_.execute(gets)) {
      if (result.status.reason == kube::ApiReason::not_found) continue;
      if (!result.ok()) throw Error(ErrorCategory::cluster, "cannot read a related object: " + result.status.describe());
      observed_.related.push_back(std::move(result.object));
    }
  }

  const Json* live_child(const Json& desired) const {
    auto key = key_of(desired);
    for (const auto& child : observed_.children)
      if (key_of(child) == key) return &child;
    return nullptr;
  }

  // Applies the children rank by rank (plan::kind_rank: ServiceAccounts and
  // Secrets before the Pods that name them, or admission rejects the Pods),
  // concurrently within a rank.
  void apply_children(const ReconcileResult& result) {
    std::map<int, std::vector<PendingApply>> by_rank;
    for (const auto& child : result.children) {
      PreparedChild prepared = prepare_child(child, parent_);
      auto key = key_of(prepared.body);
      auto gvk = model::GroupVersionKind::from(prepared.body.value("apiVersion", ""), prepared.body.value("kind", ""));
      desired_keys_.insert(key);
      auto info = client_.mapper().find(gvk);
      if (prepared.problem.empty() && (!info || !info->namespaced))
        prepared.problem = info ? "children must be namespaced objects" : "the server does not serve this kind";
      if (!prepared.problem.empty()) {
        child_outcome(key, prepared.body.value("apiVersion", ""), apply::Action::failed, prepared.problem);
        continue;
      }
      const Json* live = live_child(prepared.body);
      if (live != nullptr && (prepared.create_only ||
                              diff::apply_is_noop(prepared.body, *live, k_controller_field_manager))) {
        child_outcome(key, prepared.body.value("apiVersion", ""), apply::Action::unchanged, "");
        continue;
      }
      auto request = client_.apply_request(*info, model::Object(prepared.body), controller_apply());
      by_rank[plan::kind_rank(gvk)].push_back({std::move(request), std::move(prepared.body), live});
    }
    for (auto& [rank, pending] : by_rank) apply_rank(pending);
  }

  void apply_rank(std::vector<PendingApply>& pending) {
    std::vector<kube::HttpRequest> applies;
    for (auto& item : pending) applies.push_back(std::move(item.request));
    auto results = client_.execute(applies);
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const Json& body = pending[i].body;
      const Json* before = pending[i].live;
      apply::Action action = apply::Action::created;
      std::string message;
      if (!results[i].ok()) {
        action = apply::Action::failed;
        message = results[i].status.describe();
      } else if (before != nullptr) {
        action = (*before)["metadata"].value("resourceVersion", "") ==
                         results[i].object["metadata"].value("resourceVersion", "")
                     ? apply::Action::unchanged
                     : apply::Action::configured;
      }
      child_outcome(key_of(body), body.value("apiVersion", ""), action, message);
    }
  }

  void delete_children(const ReconcileResult& result) {
    std::map<std::string, std::pair<const Json*, std::string>> doomed;  // uid -> object, reason
    if (!result.keep_unlisted)
      for (const auto& child : observed_.children)
        if (controlled_by(child, parent_.uid) && !desired_keys_.contains(key_of(child)))
          doomed[child["metadata"].value("uid", "")] = {&child, "no longer wanted by " + parent_label()};
    for (const auto& object : result.deletions) {
      std::string reason = object["metadata"].value("annotations", Json::object())
                               .value(k_deletion_reason_annotation, "deleted by " + parent_label());
      doomed[object["metadata"].value("uid", "")] = {&object, reason};
    }
    std::vector<kube::HttpRequest> deletes;
    std::vector<std::pair<const Json*, std::string>> sent;
    for (const auto& [uid, entry] : doomed) {
      const Json& object = *entry.first;
      if (object["metadata"].contains("deletionTimestamp")) continue;
      auto gvk = model::GroupVersionKind::from(object.value("apiVersion", ""), object.value("kind", ""));
      auto info = client_.mapper().find(gvk);
      if (!info) continue;
      kube::DeleteOptions options;
      options.propagation_policy = runner_.options_.delete_propagation;
      options.precondition_uid = uid;
      deletes.push_back(client_.delete_request(*info, parent_.namespace_name, live_name(object), options));
      sent.push_back(entry);
    }
    auto results = client_.execute(deletes);
    for (std::size_t i = 0; i < sent.size(); ++i) {
      bool deleted = results[i].ok() || results[i].status.reason == kube::ApiReason::not_found;
      child_outcome(key_of(*sent[i].first), sent[i].first->value("apiVersion", ""),
                    deleted ? apply::Action::pruned : apply::Action::failed,
                    deleted ? sent[i].second : results[i].status.describe());
    }
  }

  bool write_finalizers(const ReconcileResult& result) {
    auto held = managed_finalizers(observed_.parent, k_controller_field_manager);
    std::set<std::string> wanted(result.finalizers.begin(), result.finalizers.end());
    if (held == wanted) return true;
    auto response = client_.execute(client_.apply_request(
        info_, model::Object(finalizer_body(parent_, result.finalizers)), controller_apply()));
    if (response.ok() || response.status.reason == kube::ApiReason::not_found) return true;
    write_error_ = "cannot update its finalizers: " + response.status.describe();
    return false;
  }

  bool write_status(const Json& status) {
    const Json& live = observed_.parent.value("status", Json::object());
    if (live == status) return true;
    auto response = client_.execute(client_.apply_status_request(info_, model::Object(status_body(parent_, status)),
                                                                 controller_apply()));
    if (response.ok() || response.status.reason == kube::ApiReason::not_found) return true;
    write_error_ = "cannot write its status: " + response.status.describe();
    return false;
  }

  Json status_of(const ReconcileResult& result) const {
    Json status = result.status.is_object() ? result.status : Json::object();
    status["observedGeneration"] = parent_.generation;
    const Json& live = observed_.parent.value("status", Json::object());
    status["conditions"] = merge_conditions(result.conditions, live.is_object() ? live.value("conditions", Json()) : Json(),
                                            parent_.generation, runner_.context_.clock.now());
    return status;
  }

  TargetState write(const ReconcileResult& result) {
    apply_children(result);
    delete_children(result);
    // Status first: dropping the last finalizer may delete the parent at once.
    bool written = write_status(status_of(result)) && write_finalizers(result);
    TargetState state;
    state.ready = condition_set(result.conditions, "Ready");
    state.failed = condition_set(result.conditions, "Degraded") || children_failed_ || !written;
    state.requeue = result.requeue_after;
    state.summary = condition_summary(result.conditions);
    if (observed_.finalizing) {
      // Done when the reconciler let go of its finalizers; until then, waiting.
      state.ready = result.finalizers.empty();
      state.summary = state.ready ? "finalized" : "finalizing: " + state.summary;
    }
    if (children_failed_) state.summary += "; some children could not be applied or deleted";
    if (!written) state.summary += "; " + write_error_;
    return state;
  }

  // The runner could not reconcile: say so on Degraded, keep everything else.
  TargetState degrade(const std::string& reason, const std::string& message) {
    ReconcileResult result;
    const Json& live = observed_.parent.value("status", Json::object());
    result.status = live.is_object() ? live : Json::object();
    result.conditions = conditions_from_json(result.status.value("conditions", Json()));
    result.status.erase("conditions");
    std::erase_if(result.conditions, [](const Condition& condition) { return condition.type == "Degraded"; });
    result.conditions.push_back({"Degraded", true, reason, message});
    write_status(status_of(result));
    return failure(message);
  }

  TargetState failure(const std::string& message) {
    TargetState state;
    state.failed = true;
    state.summary = message;
    return state;
  }

  TargetState gone() {
    TargetState state;
    state.gone = true;
    state.ready = true;
    return state;
  }

  void child_outcome(const model::ObjectKey& key, const std::string& api_version, apply::Action action,
                     std::string message) {
    if (action == apply::Action::failed) children_failed_ = true;
    if (!first_round_ && action == apply::Action::unchanged) return;
    apply::ObjectOutcome outcome{key, api_version, {}, target_.wave, action,
                                 message.empty() ? "owned by " + parent_label() : std::move(message), {}};
    if (runner_.options_.on_outcome) runner_.options_.on_outcome(outcome);
    report_.outcomes.push_back(std::move(outcome));
  }

  std::string parent_label() const { return target_.key.to_string(); }

  KindRunner& runner_;
  kube::ApiClient& client_;
  const Target& target_;
  apply::PassReport& report_;
  bool first_round_;
  kube::ResourceInfo info_;
  Observed observed_;
  ParentRef parent_;
  std::set<model::ObjectKey> desired_keys_;
  bool children_failed_ = false;
  std::string write_error_;
};

KindRunner::KindRunner(kube::ApiClient& client, const KindRegistry& registry, Context context, RunnerOptions options)
    : client_(client), registry_(registry), context_(context), options_(std::move(options)) {}

std::vector<KindRunner::Target> KindRunner::targets(const std::vector<model::Object>& desired) {
  std::vector<Target> found;
  for (const auto& object : desired) {
    KindReconciler* reconciler = registry_.find(object.gvk());
    if (reconciler == nullptr) continue;
    long wave = 0;
    if (auto text = object.annotation(plan::k_wave_annotation); !text.empty()) wave = std::stol(text);
    found.push_back({reconciler, object.key(), object.api_version(), object.location(), wave});
  }
  finalizing_members(found);
  return found;
}

// Members of the set being deleted (pruned, or deleted by hand) that still
// carry a finalizer of ours: their reconciler must finish them.
void KindRunner::finalizing_members(std::vector<Target>& found) {
  if (options_.applyset_id.empty()) return;
  std::set<model::ObjectKey> known;
  for (const auto& target : found) known.insert(target.key);
  kube::ListOptions options;
  options.label_selector = std::string(plan::k_applyset_part_of_label) + "=" + options_.applyset_id;
  for (const auto& reconciler : registry_.all()) {
    auto info = client_.mapper().find(reconciler->kind());
    if (!info) continue;
    std::vector<Json> members;
    try {
      members = client_.list(*info, "", options);
    } catch (const kube::ApiError&) {
      continue;  // not allowed to list across namespaces: desired resources are still reconciled
    }
    for (const auto& member : members) {
      if (!member["metadata"].contains("deletionTimestamp")) continue;
      if (managed_finalizers(member, k_controller_field_manager).empty()) continue;
      auto key = key_of(member);
      if (known.contains(key)) continue;
      found.push_back({reconciler.get(), key, member.value("apiVersion", ""), {}, 0});
    }
  }
}

void KindRunner::record_parent(const Target& target, TargetState& state, apply::PassReport& report) {
  if (state.gone || state.summary == state.emitted) return;
  state.emitted = state.summary;
  apply::ObjectOutcome* outcome = nullptr;
  for (auto& existing : report.outcomes)
    if (existing.key == target.key) outcome = &existing;
  if (outcome == nullptr) {
    report.outcomes.push_back({target.key, target.api_version, target.location, target.wave,
                               apply::Action::configured, "", {}});
    outcome = &report.outcomes.back();
  }
  outcome->message = state.summary;
  if (state.failed) outcome->action = apply::Action::failed;
  if (options_.on_outcome) options_.on_outcome(*outcome);
}

void KindRunner::settle(const std::vector<Target>& targets, std::vector<TargetState>& states,
                        apply::PassReport& report, bool timed_out) {
  std::vector<std::string> failed, waiting;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (states[i].failed) failed.push_back(fmt::format("{} ({})", targets[i].key.to_string(), states[i].summary));
    if (!states[i].failed && !states[i].ready) waiting.push_back(fmt::format("{} ({})", targets[i].key.to_string(),
                                                                              states[i].summary));
  }
  if (report.result != apply::PassResult::succeeded) return;
  if (!failed.empty()) {
    report.result = apply::PassResult::failed;
    report.message = fmt::format("custom resources failed: {}", fmt::join(failed, "; "));
  } else if (timed_out && !waiting.empty()) {
    report.result = apply::PassResult::timed_out;
    report.message = fmt::format("timed out waiting for custom resources: {}", fmt::join(waiting, "; "));
  }
}

void KindRunner::run(const std::vector<model::Object>& desired, apply::PassReport& report) {
  std::vector<Target> found = targets(desired);
  std::vector<TargetState> states(found.size());
  for (int round = 0;; ++round) {
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (stopping()) return;
      if (round > 0 && (states[i].gone || states[i].failed || (states[i].ready && !states[i].requeue))) continue;
      std::string emitted = states[i].emitted;
      states[i] = ResourcePass(*this, found[i], report, round == 0).run();
      states[i].emitted = emitted;
      record_parent(found[i], states[i], report);
    }
    if (!options_.wait) break;
    // Wait only for resources that are not Ready and said when to look again;
    // one that is not Ready and asked for nothing is as far as it gets.
    std::optional<std::chrono::seconds> next;
    std::string waiting_for;
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (states[i].gone || states[i].failed || states[i].ready || !states[i].requeue) continue;
      if (!next || *states[i].requeue < *next) next = states[i].requeue;
      if (waiting_for.empty()) waiting_for = found[i].key.to_string() + ": " + states[i].summary;
    }
    if (!next) break;
    auto wake = SteadyClock::now() + std::max(*next, std::chrono::seconds(1));
    if (wake > options_.deadline) {
      settle(found, states, report, true);
      return;
    }
    if (options_.on_waiting) options_.on_waiting("waiting for " + waiting_for);
    while (SteadyClock::now() < wake && !stopping())
      std::this_thread::sleep_for(
          std::min<SteadyClock::duration>(wake - SteadyClock::now(), std::chrono::milliseconds(200)));
  }
  settle(found, states, report, false);
}

}  // namespace opctl::kinds
