#include "kinds/kind_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "kinds/owned_objects.hpp"
#include "kube/api_error.hpp"
#include "plan/apply_order.hpp"
#include "plan/applyset.hpp"
#include "plan/prune_set.hpp"

namespace opctl::kinds {
namespace {

// Why the pass did not succeed when custom resources failed or were still
// waited for at the deadline; "" when neither.
void settle(const std::vector<model::ObjectKey>& keys, const std::vector<TargetState>& states,
            apply::PassReport& report, bool timed_out) {
  std::vector<std::string> failed, waiting;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto entry = fmt::format("{} ({})", keys[i].to_string(), states[i].summary);
    if (states[i].failed) failed.push_back(entry);
    if (!states[i].failed && !states[i].ready) waiting.push_back(entry);
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

}  // namespace

KindRunner::KindRunner(kube::ApiClient& client, const KindRegistry& registry, Context context,
                       RunnerOptions options)
    : client_(client), registry_(registry), context_(context), options_(std::move(options)) {}

std::vector<model::Object> live_members(kube::ApiClient& client, const KindRegistry& registry,
                                        const std::string& applyset_id) {
  std::vector<model::Object> found;
  if (applyset_id.empty()) return found;
  kube::ListOptions options;
  options.label_selector = std::string(plan::k_applyset_part_of_label) + "=" + applyset_id;
  // What discovery already knows, without find()'s refresh for a kind it does
  // not: a custom kind whose CRD is not installed has no members, and asking
  // the server again for each such kind cost two requests a pass.
  const auto& served = client.mapper().all();
  for (const auto& reconciler : registry.all()) {
    auto info = served.find(reconciler->kind());
    if (info == served.end()) continue;
    try {
      for (auto& member : client.list(info->second, "", options))
        found.emplace_back(std::move(member));
    } catch (const kube::ApiError&) {
      continue;  // not allowed to list across namespaces
    }
  }
  return found;
}

std::vector<KindRunner::Target> KindRunner::targets(const std::vector<model::Object>& desired,
                                                    const apply::PassReport& report) {
  std::map<model::ObjectKey, const apply::ObjectOutcome*> outcomes;
  for (const auto& outcome : report.outcomes)
    outcomes[outcome.key] = &outcome;
  std::vector<Target> found;
  for (const auto& object : desired) {
    KindReconciler* reconciler = registry_.find(object.gvk());
    if (reconciler == nullptr) continue;
    Target target{{reconciler, object.key(), object.api_version(), object.location(), plan::wave_of(object)},
                  "",
                  apply::Action::configured};
    // Not applied: the live resource (if any) is reconciled as it stands.
    auto outcome = outcomes.find(target.runner.key);
    if (outcome != outcomes.end() && (outcome->second->action == apply::Action::failed ||
                                      outcome->second->action == apply::Action::skipped))
      target.note = outcome->second->message + "; kept running from its live spec";
    found.push_back(std::move(target));
  }
  finalizing_members(found);
  return found;
}

// Members of the set being deleted (pruned, or deleted by hand) that still
// carry a finalizer of ours: their reconciler must finish them.
void KindRunner::finalizing_members(std::vector<Target>& found) {
  std::set<model::ObjectKey> known;
  for (const auto& target : found)
    known.insert(target.runner.key);
  for (const auto& member : live_members(client_, registry_, options_.applyset_id)) {
    const model::Json& body = member.body();
    if (!body["metadata"].contains("deletionTimestamp")) continue;
    if (managed_finalizers(body, k_controller_field_manager).empty()) continue;
    KindReconciler* reconciler = registry_.find(member.gvk());
    if (reconciler == nullptr || known.contains(member.key())) continue;
    found.push_back({{reconciler, member.key(), member.api_version(), {}, 0}, "", apply::Action::configured});
  }
}

void KindRunner::record_parent(const Target& target, TargetState& state, apply::PassReport& report) {
  if (state.gone || state.summary == state.emitted) return;
  state.emitted = state.summary;
  const RunnerTarget& runner = target.runner;
  apply::ObjectOutcome* outcome = nullptr;
  for (auto& existing : report.outcomes)
    if (existing.key == runner.key) outcome = &existing;
  if (outcome == nullptr) {
    report.outcomes.push_back(
        {runner.key, runner.api_version, runner.location, runner.wave, target.action, "", {}});
    outcome = &report.outcomes.back();
  }
  outcome->message = target.note.empty() ? state.summary : target.note + ": " + state.summary;
  if (state.failed) outcome->action = apply::Action::failed;
  if (options_.on_outcome) options_.on_outcome(*outcome);
}

void KindRunner::sleep_until(std::chrono::steady_clock::time_point wake, const Clock& clock) const {
  while (clock.steady_now() < wake && !stopping())
    clock.sleep_for(std::min(std::chrono::duration_cast<std::chrono::milliseconds>(wake - clock.steady_now()),
                             std::chrono::milliseconds(200)));
}

void KindRunner::run(const std::vector<model::Object>& desired, apply::PassReport& report) {
  reconcile(targets(desired, report), report);
}

void KindRunner::run_live(const std::vector<model::Object>& members, apply::PassReport& report) {
  std::vector<Target> found;
  for (const auto& member : members) {
    KindReconciler* reconciler = registry_.find(member.gvk());
    if (reconciler == nullptr) continue;
    found.push_back({{reconciler, member.key(), member.api_version(), {}, plan::wave_of(member)},
                     "from its live spec",
                     apply::Action::unchanged});
  }
  reconcile(found, report);
}

void KindRunner::reconcile(const std::vector<Target>& found, apply::PassReport& report) {
  SystemClock system_clock;
  const Clock& clock = options_.clock ? *options_.clock : system_clock;
  apply::OutcomeLog log(report, options_.on_outcome);
  std::vector<TargetState> states(found.size());
  std::vector<model::ObjectKey> keys;
  for (const auto& target : found)
    keys.push_back(target.runner.key);
  std::set<model::GroupVersionKind> reconciled_kinds;
  for (const auto& target : found)
    reconciled_kinds.insert(target.runner.reconciler->kind());
  for (int round = 0;; ++round) {
    RoundReads reads(client_, reconciled_kinds);
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (stopping()) return;
      if (round > 0 && (states[i].gone || states[i].failed || (states[i].ready && !states[i].requeue)))
        continue;
      std::string emitted = states[i].emitted;
      states[i] = ResourcePass(client_, reads, context_, found[i].runner, log,
                               {options_.delete_propagation, round == 0, options_.stop_requested})
                      .run();
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
      if (waiting_for.empty()) waiting_for = found[i].runner.key.to_string() + ": " + states[i].summary;
    }
    if (!next) break;
    auto wake = clock.steady_now() + std::max(*next, std::chrono::seconds(1));
    if (wake > options_.deadline) {
      settle(keys, states, report, true);
      return;
    }
    if (options_.on_waiting) options_.on_waiting("waiting for " + waiting_for);
    sleep_until(wake, clock);
  }
  settle(keys, states, report, false);
}

}  // namespace opctl::kinds
