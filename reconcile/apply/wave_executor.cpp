#include "apply/wave_executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "apply/crd_wait.hpp"
#include "apply/health_wait.hpp"
#include "plan/kind_scopes.hpp"

namespace opctl::apply {
namespace {

using model::Json;
using plan::PlanStep;

}  // namespace

void WaveExecutor::run(const plan::PlanWave& wave) {
  std::size_t objects = 0;
  for (const auto& batch : wave.batches)
    objects += batch.steps.size();
  const auto& events = pass_.options.events;
  if (pass_.report().result == PassResult::succeeded && !pass_.stop_now() && events.on_wave_start)
    events.on_wave_start(wave.wave, objects);
  bool wave_ok = true;
  for (const auto& batch : wave.batches) {
    if (pass_.report().result != PassResult::succeeded || pass_.stop_now()) {
      for (auto step : batch.steps)
        pass_.record(pass_.plan.steps[step], Action::skipped, "not applied: " + pass_.report().message);
      continue;
    }
    bool ok = apply_batch(batch);
    if (ok && batch.waits_for_crds) ok = wait_for_crds(batch);
    wave_ok = wave_ok && ok;
  }
  if (!wave_ok) pass_.fail(PassResult::failed, fmt::format("an object in wave {} failed", wave.wave));
  if (pass_.report().result == PassResult::succeeded && pass_.options.wait) wait_for_health(wave);
}

// Applies one batch concurrently; false when any member failed.
bool WaveExecutor::apply_batch(const plan::ApplyBatch& batch) {
  bool all_ok = true;
  std::vector<const PlanStep*> sent;
  std::vector<const kube::ResourceInfo*> kinds;  // of each step sent
  BatchKinds batch_kinds(pass_.client.mapper());
  for (auto index : batch.steps) {
    const PlanStep& step = pass_.plan.steps[index];
    if (!step.applies()) {
      pass_.record(step, Action::unchanged);
      continue;
    }
    const model::Object& object = pass_.plan.objects[step.object];
    const auto* kind = batch_kinds.find(object.gvk());
    if (kind == nullptr) {
      all_ok = false;
      pass_.record(step, Action::failed,
                   fmt::format("the server does not serve {} in {}", object.kind(), object.api_version()));
      continue;
    }
    sent.push_back(&step);
    kinds.push_back(kind);
  }
  auto request = [&](std::size_t i) {
    return pass_.client.apply_request(*kinds[i], pass_.plan.objects[sent[i]->object], pass_.options.apply);
  };
  auto answer = [&](std::size_t i, kube::ApiResult& result) {
    auto outcome = apply_outcome(result, pass_.live.find(sent[i]->key));
    all_ok = all_ok && outcome.action != Action::failed;
    pass_.record(*sent[i], outcome.action, std::move(outcome.message));
    // Only a CRD's answer is read again (Established, discovery); the others
    // are dropped chunk by chunk, or a first apply would hold a copy of the set.
    if (result.ok() && plan::is_crd({sent[i]->key.group, "", sent[i]->key.kind}))
      applied_crds_[sent[i]->key] = std::move(result.object);
  };
  auto done = stream_writes(pass_.client, sent.size(), request, answer, [this] { return pass_.stop_now(); });
  for (auto i = done; i < sent.size(); ++i)
    pass_.record(*sent[i], Action::skipped, "not applied: " + pass_.report().message);
  return all_ok;
}

// A CRD as the server holds it after this pass: the apply's answer, or live
// when the apply was a no-op; nullptr when it failed.
const Json* WaveExecutor::crd_now(const model::ObjectKey& key) const {
  if (auto found = applied_crds_.find(key); found != applied_crds_.end()) return &found->second;
  return pass_.live.find(key);
}

bool WaveExecutor::wait_for_crds(const plan::ApplyBatch& batch) {
  std::vector<CrdToWait> crds;
  std::vector<const PlanStep*> steps;
  BatchKinds kinds(pass_.client.mapper());
  for (auto index : batch.steps) {
    const PlanStep& step = pass_.plan.steps[index];
    const auto* kind = kinds.find(pass_.plan.objects[step.object].gvk());
    if (kind == nullptr) continue;  // already failed
    crds.push_back({step.key.name, *kind, crd_now(step.key)});
    steps.push_back(&step);
  }
  // --timeout 0 means "do not wait for health", not "give new CRDs no time": their custom resources in
  // this pass need them Established, so the wait keeps its own limit then.
  auto limit = pass_.clock.steady_now() + pass_.options.crd_established_timeout;
  auto deadline = pass_.options.timeout.count() == 0 ? limit : std::min(pass_.deadline, limit);
  auto pending = wait_until_established(pass_.client, pass_.clock, crds, deadline);
  for (auto i : pending)
    pass_.amend(*steps[i], Action::failed, "CustomResourceDefinition did not become Established in time");
  // Discovery changes only when a CRD did: a no-op pass keeps what it knows
  // (a kind still missing later refreshes it anyway).
  bool changed = std::any_of(steps.begin(), steps.end(), [&](const PlanStep* step) {
    const Json* before = pass_.live.find(step->key);
    const Json* after = crd_now(step->key);
    return before == nullptr || after == nullptr || resource_version(*before) != resource_version(*after);
  });
  if (changed) pass_.client.mapper().invalidate();
  return pending.empty();
}

void WaveExecutor::wait_for_health(const plan::PlanWave& wave) {
  std::vector<WaitTarget> targets;
  // Each kind asked once: a kind discovery lacks (its apply failed) would
  // otherwise reload discovery from the server for every object of it.
  BatchKinds kinds(pass_.client.mapper());
  for (auto index : wave.health_waits) {
    const PlanStep& step = pass_.plan.steps[index];
    if (const auto* kind = kinds.find(pass_.plan.objects[step.object].gvk()))
      targets.push_back({step.key, *kind});
  }
  WaitOptions wait;
  wait.deadline = pass_.deadline;
  wait.clock = &pass_.clock;
  wait.stop_requested = pass_.options.stop_requested;
  wait.on_poll = [&](const auto& unhealthy) {
    if (pass_.options.events.on_waiting) pass_.options.events.on_waiting(wave.wave, unhealthy);
  };
  WaitResult result = wait_until_healthy(pass_.client, targets, wait);
  std::map<model::ObjectKey, HealthStatus> unhealthy(result.unhealthy.begin(), result.unhealthy.end());
  for (auto& outcome : pass_.report().outcomes) {
    if (outcome.wave != wave.wave) continue;
    auto found = unhealthy.find(outcome.key);
    outcome.health = found == unhealthy.end() ? HealthStatus{HealthState::healthy, ""} : found->second;
  }
  bool stopped = result.outcome == WaitResult::Outcome::stopped && pass_.stop_now();
  if (result.outcome == WaitResult::Outcome::healthy || stopped) return;
  std::vector<std::string> names;
  for (const auto& [key, health] : result.unhealthy)
    names.push_back(fmt::format("{} ({}: {})", key.to_string(), to_string(health.state), health.message));
  bool timed_out = result.outcome == WaitResult::Outcome::timed_out;
  pass_.fail(
      timed_out ? PassResult::timed_out : PassResult::unhealthy,
      fmt::format("{} in wave {}: {}", timed_out ? "timed out waiting for health" : "cannot become healthy",
                  wave.wave, fmt::join(names, "; ")));
}

}  // namespace opctl::apply
