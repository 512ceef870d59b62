#include "kinds/kind_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
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
void settle(const std::vector<RunnerTarget>& targets, const std::vector<TargetState>& states,
            apply::PassReport& report, bool timed_out) {
  std::vector<std::string> failed, waiting;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    auto entry = fmt::format("{} ({})", targets[i].key.to_string(), states[i].summary);
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

std::vector<RunnerTarget> KindRunner::targets(const std::vector<model::Object>& desired) {
  std::vector<RunnerTarget> found;
  for (const auto& object : desired) {
    KindReconciler* reconciler = registry_.find(object.gvk());
    if (reconciler == nullptr) continue;
    found.push_back(
        {reconciler, object.key(), object.api_version(), object.location(), plan::wave_of(object)});
  }
  finalizing_members(found);
  return found;
}

// Members of the set being deleted (pruned, or deleted by hand) that still
// carry a finalizer of ours: their reconciler must finish them.
void KindRunner::finalizing_members(std::vector<RunnerTarget>& found) {
  if (options_.applyset_id.empty()) return;
  std::set<model::ObjectKey> known;
  for (const auto& target : found)
    known.insert(target.key);
  kube::ListOptions options;
  options.label_selector = std::string(plan::k_applyset_part_of_label) + "=" + options_.applyset_id;
  // What discovery already knows, without find()'s refresh for a kind it does
  // not: a custom kind whose CRD is not installed has no members to finish,
  // and asking the server again for each such kind cost two requests a pass.
  const auto& served = client_.mapper().all();
  for (const auto& reconciler : registry_.all()) {
    auto info = served.find(reconciler->kind());
    if (info == served.end()) continue;
    std::vector<model::Json> members;
    try {
      members = client_.list(info->second, "", options);
    } catch (const kube::ApiError&) {
      continue;  // not allowed to list across namespaces: desired resources are still reconciled
    }
    for (const auto& member : members) {
      if (!member["metadata"].contains("deletionTimestamp")) continue;
      if (managed_finalizers(member, k_controller_field_manager).empty()) continue;
      auto key = plan::key_of_live(member);
      if (known.contains(key)) continue;
      found.push_back({reconciler.get(), key, member.value("apiVersion", ""), {}, 0});
    }
  }
}

void KindRunner::record_parent(const RunnerTarget& target, TargetState& state, apply::PassReport& report) {
  if (state.gone || state.summary == state.emitted) return;
  state.emitted = state.summary;
  apply::ObjectOutcome* outcome = nullptr;
  for (auto& existing : report.outcomes)
    if (existing.key == target.key) outcome = &existing;
  if (outcome == nullptr) {
    report.outcomes.push_back(
        {target.key, target.api_version, target.location, target.wave, apply::Action::configured, "", {}});
    outcome = &report.outcomes.back();
  }
  outcome->message = state.summary;
  if (state.failed) outcome->action = apply::Action::failed;
  if (options_.on_outcome) options_.on_outcome(*outcome);
}

void KindRunner::sleep_until(std::chrono::steady_clock::time_point wake, const Clock& clock) const {
  while (clock.steady_now() < wake && !stopping())
    clock.sleep_for(std::min(std::chrono::duration_cast<std::chrono::milliseconds>(wake - clock.steady_now()),
                             std::chrono::milliseconds(200)));
}

void KindRunner::run(const std::vector<model::Object>& desired, apply::PassReport& report) {
  SystemClock system_clock;
  const Clock& clock = options_.clock ? *options_.clock : system_clock;
  apply::OutcomeLog log(report, options_.on_outcome);
  std::vector<RunnerTarget> found = targets(desired);
  std::vector<TargetState> states(found.size());
  for (int round = 0;; ++round) {
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (stopping()) return;
      if (round > 0 && (states[i].gone || states[i].failed || (states[i].ready && !states[i].requeue)))
        continue;
      std::string emitted = states[i].emitted;
      states[i] = ResourcePass(client_, context_, found[i], log,
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
      if (waiting_for.empty()) waiting_for = found[i].key.to_string() + ": " + states[i].summary;
    }
    if (!next) break;
    auto wake = clock.steady_now() + std::max(*next, std::chrono::seconds(1));
    if (wake > options_.deadline) {
      settle(found, states, report, true);
      return;
    }
    if (options_.on_waiting) options_.on_waiting("waiting for " + waiting_for);
    sleep_until(wake, clock);
  }
  settle(found, states, report, false);
}

}  // namespace opctl::kinds
