#include "apply/apply_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <thread>

#include "apply/applyset_store.hpp"
#include "apply/cluster_events.hpp"
#include "apply/diff_pass.hpp"
#include "apply/health_wait.hpp"
#include "apply/lease_lock.hpp"
#include "apply/live_state.hpp"
#include "apply/prune_guard.hpp"
#include "apply/set_source.hpp"
#include "diff/field_ownership.hpp"
#include "diff/ignore_rules.hpp"
#include "model/error.hpp"
#include "plan/apply_order.hpp"
#include "plan/prune_set.hpp"

namespace opctl::apply {
namespace {

using model::Json;
using model::Object;
using Clock = std::chrono::steady_clock;

const int k_crd_rank = plan::kind_rank({"apiextensions.k8s.io", "v1", "CustomResourceDefinition"});

std::string resource_version(const Json& object) {
  return object.contains("metadata") ? object["metadata"].value("resourceVersion", "") : "";
}

bool crd_established(const Json& crd) {
  return assess_health(crd).state == HealthState::healthy;
}

std::string rfc3339_now() {
  std::string micro = format_micro_time(std::chrono::system_clock::now());
  return micro.substr(0, 19) + "Z";
}

class PassRunner {
 public:
  PassRunner(kube::ApiClient& client, std::vector<Object> objects, const PassOptions& options)
      : client_(client),
        objects_(std::move(objects)),
        options_(options),
        store_(client, options.applyset, options.tooling),
        events_(client, options.events.on_warning) {}

  PassReport run() {
    report_.started = std::chrono::system_clock::now();
    report_.dry_run = options_.dry_run;
    auto started = Clock::now();
    deadline_ = started + options_.timeout;
    plan::label_members(objects_, options_.applyset);
    auto groups = plan::order_for_apply(objects_);
    live_ = read_live_state(client_, objects_);
    auto parent = store_.read();
    previous_ = parent ? plan::ApplySetInventory::from_parent(*parent) : plan::ApplySetInventory{};
    current_ = plan::ApplySetInventory::of(objects_, options_.applyset.namespace_name);
    check_set_source(parent);

    if (options_.dry_run) {
      plan_only();
    } else {
      // Record every kind before changing anything, so a pass killed half-way
      // still finds what it applied when the next pass prunes; the run records
      // are carried as they are.
      RunRecords records = RunRecords::of(parent);
      Json written = store_.write(previous_.merged_with(current_), records);
      EventSubject subject{"Secret", options_.applyset.name, options_.applyset.namespace_name,
                           written.is_object() ? written.value("/metadata/uid"_json_pointer, "") : ""};
      events_.record(subject, "Normal", "ReconcileStarted",
                     fmt::format("pass started{}: {} objects", revision_note(), objects_.size()));
      apply_waves(groups);
      bool pruned = false;
      if (report_.result == PassResult::succeeded && !stop_now() && options_.prune) pruned = prune();
      if (report_.result == PassResult::succeeded && !stop_now() && options_.run_custom_kinds) {
        options_.run_custom_kinds(report_);
        stop_now();
      }
      auto inventory = pruned ? current_.merged_with(kept_) : previous_.merged_with(current_);
      records.last_run = last_run_record();
      if (report_.result == PassResult::succeeded) records.last_success = records.last_run;
      store_.write(inventory, records);
      record_outcome_event(subject);
    }
    report_.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
    return std::move(report_);
  }

 private:
  // Throws (nothing changed yet) when pruning a set written from another source.
  void check_set_source(const std::optional<Json>& parent) {
    SetSourceCheck check{options_.applyset.namespace_name + "/" + options_.applyset.name, options_.source,
                         options_.prune, options_.take_over, [this] {
                           std::vector<std::string> names;
                           for (const auto& candidate : candidates())
                             if (!candidate.kept) names.push_back(candidate.key.to_string());
                           return names;
                         }};
    auto decision = decide_set_source(parent, check);
    store_.record_source(decision.record);
    if (!decision.warning.empty() && options_.events.on_warning) options_.events.on_warning(decision.warning);
  }

  // A Namespace or CRD that still holds others' objects stays (prune_guard.hpp).
  void keep_if_guarded(plan::PruneCandidate& candidate) {
    PruneGuardOptions guard{options_.applyset.id(), options_.prune_namespaces, options_.prune_crds};
    if (auto refusal = prune_refusal(client_, candidate, guard); !refusal.empty()) {
      candidate.kept = true;
      candidate.reason = std::move(refusal);
    }
  }

  // --dry-run: what would happen, decided from live state alone.
  void plan_only() {
    for (std::size_t index = 0; index < objects_.size(); ++index) {
      Object& object = objects_[index];
      const Json* current = live_.find(object.key());
      bool noop = prepare(object, current);
      if (current == nullptr) {
        record(index, Action::planned_create, "");
      } else if (noop) {
        record(index, Action::unchanged, "");
      } else {
        record(index, Action::planned_update, "");
      }
    }
    if (!options_.prune) return;
    for (auto& candidate : candidates()) {
      keep_if_guarded(candidate);
      record_prune(candidate, candidate.kept ? Action::kept : Action::planned_prune);
    }
  }

  // Once SIGTERM/SIGINT arrived: the pass is interrupted and sends no more
  // batches (the one in flight has finished).
  bool stop_now() {
    if (report_.result == PassResult::interrupted) return true;
    if (!options_.stop_requested || !options_.stop_requested()) return false;
    report_.result = PassResult::interrupted;
    report_.message = "interrupted (SIGTERM or SIGINT): stopped after the requests in flight";
    return true;
  }

  // Sends writes chunk by chunk and stops between chunks once interrupted:
  // the answers of the requests sent, in order (fewer than asked when stopped).
  std::vector<kube::ApiResult> send_writes(const std::vector<kube::HttpRequest>& requests) {
    std::vector<kube::ApiResult> results;
    for (std::size_t from = 0; from < requests.size() && !stop_now();
         from += kube::ApiClient::k_write_chunk) {
      auto to = std::min(requests.size(), from + kube::ApiClient::k_write_chunk);
      auto part =
          client_.execute(std::vector<kube::HttpRequest>(requests.begin() + static_cast<std::ptrdiff_t>(from),
                                                         requests.begin() + static_cast<std::ptrdiff_t>(to)));
      std::move(part.begin(), part.end(), std::back_inserter(results));
    }
    return results;
  }

  void skip(const std::vector<plan::ApplyGroup>& groups, std::size_t from, std::size_t to) {
    for (std::size_t g = from; g < to; ++g)
      for (auto index : groups[g].members)
        record(index, Action::skipped, "not applied: " + report_.message);
  }

  // A failed object does not stop the rest of its wave; later waves are
  // skipped (they may depend on it), as the README says.
  void apply_waves(const std::vector<plan::ApplyGroup>& groups) {
    std::size_t next = 0;
    while (next < groups.size()) {
      long wave = groups[next].wave;
      std::size_t end = next;
      std::size_t objects = 0;
      for (; end < groups.size() && groups[end].wave == wave; ++end)
        objects += groups[end].members.size();
      if (report_.result != PassResult::succeeded || stop_now()) {
        skip(groups, next, end);
        next = end;
        continue;
      }
      if (options_.events.on_wave_start) options_.events.on_wave_start(wave, objects);
      bool wave_ok = true;
      for (std::size_t g = next; g < end; ++g) {
        if (stop_now()) {
          skip(groups, g, end);
          break;
        }
        bool ok = apply_group(groups[g].members);
        if (ok && groups[g].rank == k_crd_rank) ok = wait_for_crds(groups[g].members);
        wave_ok = wave_ok && ok;
      }
      if (!wave_ok && report_.result == PassResult::succeeded) {
        report_.result = PassResult::failed;
        report_.message = fmt::format("an object in wave {} failed", wave);
      }
      if (report_.result == PassResult::succeeded && options_.wait) wait_for_wave(wave, groups, next, end);
      next = end;
    }
  }

  // Settles what the object is sent as; true when applying it would change
  // nothing. opctl.io/source keeps its live value unless the object changes
  // anyway, so a pass where only the commit moved sends no request.
  bool prepare(Object& object, const Json* current) {
    std::string source = object.annotation(diff::k_source_annotation);
    carry_source_annotation(object, current);
    if (current == nullptr) return false;
    diff::keep_live_values_of_ignored_fields(object.body(), *current, object.key(), options_.ignore_rules,
                                             options_.apply.field_manager);
    if (diff::apply_is_noop(object.body(), *current, options_.apply.field_manager)) return true;
    if (!source.empty()) object.set_annotation(diff::k_source_annotation, source);
    return false;
  }

  std::optional<kube::ResourceInfo> resource_of(const Object& object) {
    return client_.mapper().find(object.gvk());
  }

  // A CRD as the server holds it after this pass: the apply's answer, or live
  // when the apply was a no-op; nullptr when it failed.
  const Json* applied(std::size_t index) const {
    if (auto found = applied_.find(index); found != applied_.end()) return &found->second;
    return live_.find(objects_[index].key());
  }

  // Applies one group concurrently; false when any member failed. Objects
  // whose apply would be a no-op (judged from live state) cost no request.
  bool apply_group(const std::vector<std::size_t>& members) {
    std::vector<std::size_t> sent;
    std::vector<kube::HttpRequest> applies;
    bool all_ok = true;
    for (auto index : members) {
      Object& object = objects_[index];
      if (prepare(object, live_.find(object.key()))) {
        record(index, Action::unchanged, "");
        continue;
      }
      auto info = resource_of(object);
      if (!info) {
        all_ok = false;
        record(index, Action::failed,
               fmt::format("the server does not serve {} in {}", object.kind(), object.api_version()));
        continue;
      }
      sent.push_back(index);
      applies.push_back(client_.apply_request(*info, object, options_.apply));
    }
    auto results = send_writes(applies);
    for (std::size_t i = 0; i < sent.size(); ++i) {
      std::size_t index = sent[i];
      if (i >= results.size()) {
        record(index, Action::skipped, "not applied: " + report_.message);
        continue;
      }
      if (!results[i].ok()) {
        all_ok = false;
        std::string message = results[i].status.describe();
        if (results[i].status.reason == kube::ApiReason::conflict)
          message +=
              " (another field manager changed these fields: run with --force-conflicts to take them back, "
              "or stop setting them in git)";
        record(index, Action::failed, message);
        continue;
      }
      const Json* before = live_.find(objects_[index].key());
      if (before == nullptr) {
        record(index, Action::created, "");
      } else {
        bool changed = resource_version(*before) != resource_version(results[i].object);
        record(index, changed ? Action::configured : Action::unchanged, "");
      }
      // Only a CRD's answer is read again (Established, discovery); keeping every
      // answer of a first apply would hold a copy of the whole set.
      if (objects_[index].kind() == "CustomResourceDefinition")
        applied_[index] = std::move(results[i].object);
    }
    return all_ok;
  }

  // Custom resources of a CRD created in this pass can be applied only once
  // the CRD is Established and discovery serves its kind.
  bool wait_for_crds(const std::vector<std::size_t>& members) {
    auto deadline = std::min(deadline_, Clock::now() + options_.crd_established_timeout);
    std::vector<std::size_t> pending;
    for (auto index : members)
      if (const Json* crd = applied(index); crd == nullptr || !crd_established(*crd))
        pending.push_back(index);
    while (!pending.empty() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::vector<kube::HttpRequest> gets;
      for (auto index : pending)
        gets.push_back(client_.get_request(*resource_of(objects_[index]), "", objects_[index].name()));
      auto results = client_.execute(gets);
      std::vector<std::size_t> still;
      for (std::size_t i = 0; i < pending.size(); ++i)
        if (!results[i].ok() || !crd_established(results[i].object)) still.push_back(pending[i]);
      pending = std::move(still);
    }
    for (auto index : pending)
      update(index, Action::failed, "CustomResourceDefinition did not become Established in time");
    // Discovery changes only when a CRD did: a no-op pass keeps what it knows
    // (a kind still missing later refreshes it anyway).
    bool changed = std::any_of(members.begin(), members.end(), [&](std::size_t index) {
      const Json* before = live_.find(objects_[index].key());
      const Json* after = applied(index);
      return before == nullptr || after == nullptr || resource_version(*before) != resource_version(*after);
    });
    if (changed) client_.mapper().invalidate();
    return pending.empty();
  }

  bool skips_health(const Object& object) const {
    auto gvk = object.gvk();
    return std::any_of(options_.skip_health.begin(), options_.skip_health.end(),
                       [&](const auto& rule) { return rule.first == gvk.group && rule.second == gvk.kind; });
  }

  void wait_for_wave(long wave, const std::vector<plan::ApplyGroup>& groups, std::size_t from,
                     std::size_t to) {
    std::vector<WaitTarget> targets;
    for (std::size_t g = from; g < to; ++g)
      for (auto index : groups[g].members) {
        if (skips_health(objects_[index])) continue;
        if (auto info = resource_of(objects_[index])) targets.push_back({objects_[index].key(), *info});
      }
    WaitOptions wait;
    wait.deadline = deadline_;
    wait.stop_requested = options_.stop_requested;
    wait.on_poll = [&](const auto& unhealthy) {
      if (options_.events.on_waiting) options_.events.on_waiting(wave, unhealthy);
    };
    WaitResult result = wait_until_healthy(client_, targets, wait);
    std::map<model::ObjectKey, HealthStatus> unhealthy(result.unhealthy.begin(), result.unhealthy.end());
    for (auto& outcome : report_.outcomes) {
      if (outcome.wave != wave) continue;
      auto found = unhealthy.find(outcome.key);
      outcome.health = found == unhealthy.end() ? HealthStatus{HealthState::healthy, ""} : found->second;
    }
    bool stopped = result.outcome == WaitResult::Outcome::stopped && stop_now();
    if (result.outcome == WaitResult::Outcome::healthy || stopped) return;
    std::vector<std::string> names;
    for (const auto& [key, health] : result.unhealthy)
      names.push_back(fmt::format("{} ({}: {})", key.to_string(), to_string(health.state), health.message));
    bool timed_out = result.outcome == WaitResult::Outcome::timed_out;
    report_.result = timed_out ? PassResult::timed_out : PassResult::unhealthy;
    report_.message =
        fmt::format("{} in wave {}: {}", timed_out ? "timed out waiting for health" : "cannot become healthy",
                    wave, fmt::join(names, "; "));
  }

  std::vector<plan::PruneCandidate> candidates() {
    std::set<model::ObjectKey> desired;
    for (const auto& object : objects_)
      desired.insert(object.key());
    return plan::prune_candidates(store_.members(previous_.merged_with(current_)), desired);
  }

  // Deletes members that left the set, in reverse apply order; true when
  // every deletion was accepted.
  bool prune() {
    bool all_ok = true;
    auto found = candidates();
    std::vector<plan::PruneCandidate*> deletable;
    for (auto& candidate : found) {
      keep_if_guarded(candidate);
      if (candidate.kept) {
        kept_.group_kinds.insert({candidate.key.group, candidate.key.kind});
        if (!candidate.key.namespace_name.empty() &&
            candidate.key.namespace_name != options_.applyset.namespace_name)
          kept_.namespaces.insert(candidate.key.namespace_name);
        record_prune(candidate, Action::kept);
        continue;
      }
      deletable.push_back(&candidate);
    }
    // Delete group by group (same rank), waiting for nothing but the requests.
    std::size_t next = 0;
    while (next < deletable.size()) {
      if (stop_now()) {
        for (; next < deletable.size(); ++next)
          record_prune(*deletable[next], Action::skipped, "not pruned: interrupted");
        return false;
      }
      int rank = plan::kind_rank(model::GroupVersionKind::from(deletable[next]->live.value("apiVersion", ""),
                                                               deletable[next]->key.kind));
      std::vector<plan::PruneCandidate*> batch;
      std::vector<kube::HttpRequest> requests;
      while (next < deletable.size() &&
             plan::kind_rank(model::GroupVersionKind::from(deletable[next]->live.value("apiVersion", ""),
                                                           deletable[next]->key.kind)) == rank) {
        auto* candidate = deletable[next++];
        auto gvk =
            model::GroupVersionKind::from(candidate->live.value("apiVersion", ""), candidate->key.kind);
        auto info = client_.mapper().find(gvk);
        if (!info) continue;
        kube::DeleteOptions options;
        options.propagation_policy = options_.delete_propagation;
        options.precondition_uid = candidate->live["metadata"].value("uid", "");
        batch.push_back(candidate);
        requests.push_back(
            client_.delete_request(*info, candidate->key.namespace_name, candidate->key.name, options));
      }
      auto results = send_writes(requests);
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (i >= results.size()) {
          record_prune(*batch[i], Action::skipped, "not pruned: interrupted");
          continue;
        }
        bool gone = results[i].ok() || results[i].status.reason == kube::ApiReason::not_found;
        if (!gone) all_ok = false;
        record_prune(*batch[i], gone ? Action::pruned : Action::failed,
                     gone ? "" : "prune (delete) failed: " + results[i].status.describe());
      }
    }
    if (!all_ok && report_.result == PassResult::succeeded) {
      report_.result = PassResult::failed;
      report_.message = "some objects could not be pruned";
    }
    return all_ok;
  }

  std::string revision_note() const { return options_.revision.empty() ? "" : " from " + options_.revision; }

  // The pass's end as an Event: counts, and the reason when it failed.
  void record_outcome_event(const EventSubject& subject) {
    std::string counts = fmt::format("{} created, {} configured, {} unchanged, {} pruned, {} failed",
                                     report_.count(Action::created), report_.count(Action::configured),
                                     report_.count(Action::unchanged), report_.count(Action::pruned),
                                     report_.count(Action::failed));
    if (report_.result == PassResult::succeeded) {
      events_.record(subject, "Normal", "ReconcileSucceeded",
                     fmt::format("applied{}: {}", revision_note(), counts));
      return;
    }
    std::string reason = report_.result == PassResult::timed_out ? "ReconcileTimedOut" : "ReconcileFailed";
    std::string why = report_.message.empty() ? "" : report_.message + "; ";
    for (const auto& outcome : report_.outcomes)
      if (outcome.action == Action::failed) {
        why += fmt::format("{}: {}; ", outcome.key.to_string(), outcome.message);
        break;
      }
    events_.record(subject, "Warning", reason, fmt::format("{}{}{}", why, counts, revision_note()));
  }

  std::string last_run_record() const {
    Json record = {{"revision", options_.revision},
                   {"time", rfc3339_now()},
                   {"result", to_string(report_.result)},
                   {"created", report_.count(Action::created)},
                   {"configured", report_.count(Action::configured)},
                   {"unchanged", report_.count(Action::unchanged)},
                   {"pruned", report_.count(Action::pruned)},
                   {"failed", report_.count(Action::failed)}};
    if (!report_.message.empty()) record["message"] = report_.message;
    return record.dump();
  }

  void record(std::size_t index, Action action, std::string message) {
    const Object& object = objects_[index];
    long wave = 0;
    if (auto text = object.annotation(plan::k_wave_annotation); !text.empty()) wave = std::stol(text);
    ObjectOutcome outcome{
        object.key(), object.api_version(), object.location(), wave, action, std::move(message), {}};
    if (options_.events.on_outcome) options_.events.on_outcome(outcome);
    report_.outcomes.push_back(std::move(outcome));
  }

  void record_prune(const plan::PruneCandidate& candidate, Action action, std::string message = "") {
    ObjectOutcome outcome{candidate.key,
                          candidate.live.value("apiVersion", ""),
                          {},
                          0,
                          action,
                          message.empty() ? candidate.reason : std::move(message),
                          {}};
    if (options_.events.on_outcome) options_.events.on_outcome(outcome);
    report_.outcomes.push_back(std::move(outcome));
  }

  void update(std::size_t index, Action action, const std::string& message) {
    for (auto& outcome : report_.outcomes)
      if (outcome.key == objects_[index].key()) {
        outcome.action = action;
        outcome.message = message;
      }
  }

  kube::ApiClient& client_;
  std::vector<Object> objects_;
  const PassOptions& options_;
  ApplySetStore store_;
  ClusterEvents events_;
  LiveState live_;
  plan::ApplySetInventory previous_, current_, kept_;
  std::map<std::size_t, Json> applied_;  // the server's answers to CRD applies
  Clock::time_point deadline_;
  PassReport report_;
};

}  // namespace

const char* to_string(Action action) {
  switch (action) {
    case Action::created:
      return "created";
    case Action::configured:
      return "configured";
    case Action::unchanged:
      return "unchanged";
    case Action::pruned:
      return "pruned";
    case Action::kept:
      return "kept";
    case Action::failed:
      return "failed";
    case Action::skipped:
      return "skipped";
    case Action::planned_create:
      return "would be created";
    case Action::planned_update:
      return "would be configured";
    case Action::planned_prune:
      return "would be pruned";
  }
  return "unknown";
}

const char* to_string(PassResult result) {
  switch (result) {
    case PassResult::succeeded:
      return "succeeded";
    case PassResult::failed:
      return "failed";
    case PassResult::timed_out:
      return "timed-out";
    case PassResult::unhealthy:
      return "unhealthy";
    case PassResult::interrupted:
      return "interrupted";
  }
  return "unknown";
}

std::size_t PassReport::count(Action action) const {
  return static_cast<std::size_t>(std::count_if(
      outcomes.begin(), outcomes.end(), [&](const auto& outcome) { return outcome.action == action; }));
}

PassReport run_apply_pass(kube::ApiClient& client, std::vector<Object> objects, const PassOptions& options) {
  return PassRunner(client, std::move(objects), options).run();
}

}  // namespace opctl::apply
