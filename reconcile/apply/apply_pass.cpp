#include "apply/apply_pass.hpp"

#include "apply/applyset_store.hpp"
#include "apply/cluster_events.hpp"
#include "apply/live_state.hpp"
#include "apply/pass_execution.hpp"
#include "apply/pass_records.hpp"
#include "apply/prune_executor.hpp"
#include "apply/set_source.hpp"
#include "apply/wave_executor.hpp"
#include "model/error.hpp"
#include "plan/pass_plan.hpp"

namespace opctl::apply {
namespace {

using model::Json;
using model::Object;
// Runs a pass: reads what the plan needs, makes the plan, then executes it
// (the inventory first, the waves, prune, the custom kinds, the run record).
class PassExecutor {
 public:
  PassExecutor(kube::ApiClient& client, const PassOptions& options, const Clock& clock)
      : client_(client),
        options_(options),
        clock_(clock),
        store_(client, options.applyset, options.tooling),
        events_(client, options.events.on_warning),
        log_(report_, options.events.on_outcome) {}

  PassReport run(std::vector<Object> objects) {
    report_.started = clock_.wall_now();
    report_.dry_run = options_.dry_run;
    auto started = clock_.steady_now();
    started_ = started;
    plan::label_members(objects, options_.applyset);
    plan::PlanOptions plan_options{options_.apply.field_manager, options_.ignore_rules, options_.prune,
                                   options_.wait, options_.skip_health};
    LiveStateOptions read;
    read.managed_fields_of = options_.apply.field_manager;
    read.ignore_rules = options_.ignore_rules;
    read.settles = [&plan_options](const Object& desired, const Json& live) {
      return plan::settles(desired, live, plan_options);
    };
    read.on_settled = [&objects](std::size_t index) { plan::keep_settled_identity(objects[index]); };
    live_ = read_live_state(client_, objects, read);
    auto parent = store_.read();
    previous_ = parent ? plan::ApplySetInventory::from_parent(*parent) : plan::ApplySetInventory{};
    current_ = plan::ApplySetInventory::of(objects, options_.applyset.namespace_name);
    std::vector<Json> members;
    if (options_.prune) members = store_.members(previous_.merged_with(current_));
    std::size_t member_count = members.size();
    plan_ = plan::make_pass_plan(std::move(objects), live_, members, plan_options);
    members = {};
    // One outcome per step (custom kinds may add theirs), sized once: at
    // 20,000 objects doubling cost ~10 MiB at the end of a pass.
    report_.outcomes.reserve(plan_.steps.size());
    check_pin_unchanged(parent, options_.pin, options_.applyset.qualified_name());
    check_set_source(parent);
    if (options_.prune) check_prune_volume(parent, member_count);
    PassExecution pass{client_, options_, clock_, plan_, live_, log_, started + options_.timeout};
    if (options_.dry_run) {
      report_plan(pass);
    } else {
      execute(pass, parent);
    }
    report_.duration = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.steady_now() - started);
    return std::move(report_);
  }

 private:
  // Throws (nothing changed yet) when pruning a set written from another source.
  void check_set_source(const std::optional<Json>& parent) {
    SetSourceCheck check{options_.applyset.qualified_name(), options_.source, options_.prune,
                         options_.take_over, [this] { return plan::pruned_names(plan_.steps); }};
    auto decision = decide_set_source(parent, check);
    store_.record_source(decision.record);
    if (!decision.warning.empty() && options_.events.on_warning) options_.events.on_warning(decision.warning);
  }

  // Throws (nothing changed yet) when the source yields nothing or the prune is a mass deletion; a
  // real pass also leaves a Warning Event on the set's parent, which an unattended run's owner reads.
  void check_prune_volume(const std::optional<Json>& parent, std::size_t members) {
    try {
      apply::check_prune_volume({options_.applyset.qualified_name(), plan_.objects.size(), members,
                                 plan::pruned_names(plan_.steps)},
                                options_.prune_limits);
    } catch (const InvalidInputError& refusal) {
      if (parent && !options_.dry_run) {
        EventSubject subject{"Secret", options_.applyset.name, options_.applyset.namespace_name,
                             parent->value("/metadata/uid"_json_pointer, "")};
        events_.record(subject, "Warning", "PruneRefused", refusal.problems().front().message);
      }
      throw;
    }
  }

  void execute(PassExecution& pass, const std::optional<Json>& parent) {
    // Record every kind before changing anything, so a pass killed half-way
    // still finds what it applied when the next pass prunes; the run records
    // are carried as they are.
    RunRecords records = RunRecords::of(parent);
    records.pin = pin_after(records.pin, options_.pin);
    Json written = store_.write(previous_.merged_with(current_), records);
    EventSubject subject{"Secret", options_.applyset.name, options_.applyset.namespace_name,
                         written.is_object() ? written.value("/metadata/uid"_json_pointer, "") : ""};
    record_pass_started(events_, subject, options_.revision, plan_.objects.size());
    WaveExecutor waves(pass);
    for (const auto& wave : plan_.waves)
      waves.run(wave);
    std::optional<PruneExecution> pruned;
    if (report_.result == PassResult::succeeded && !pass.stop_now() && options_.prune) {
      if (options_.events.on_prune_start)
        options_.events.on_prune_start(plan::pruned_names(plan_.steps).size());
      pruned = execute_prune(pass);
    }
    // Whatever else failed: a Cluster's reconciler repairs and fails over from what exists, and must not
    // wait on an unrelated object of the set.
    if (!pass.stop_now() && options_.run_custom_kinds) {
      if (options_.events.on_custom_kinds_start) options_.events.on_custom_kinds_start();
      options_.run_custom_kinds(report_);
      pass.stop_now();
    }
    // A prune that deleted everything it had to leaves the inventory to what
    // is desired (and kept); otherwise the next pass must still find the rest.
    auto inventory =
        pruned && pruned->all_deleted ? current_.merged_with(pruned->kept) : previous_.merged_with(current_);
    records.last_run = last_run_record(report_, options_.revision, clock_.wall_now());
    if (report_.result == PassResult::succeeded) records.last_success = records.last_run;
    auto duration = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.steady_now() - started_);
    records.history = append_history(parse_history(records.history, RunRecords::of(parent).last_run),
                                     history_entry(report_, options_.origin, duration));
    store_.write(inventory, records);
    record_pass_finished(events_, subject, report_, options_.revision);
  }

  kube::ApiClient& client_;
  const PassOptions& options_;
  const Clock& clock_;
  ApplySetStore store_;
  ClusterEvents events_;
  PassReport report_;
  OutcomeLog log_;
  LiveState live_;
  plan::PassPlan plan_;
  plan::ApplySetInventory previous_, current_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace

PassReport run_apply_pass(kube::ApiClient& client, std::vector<Object> objects, const PassOptions& options) {
  SystemClock system_clock;
  return PassExecutor(client, options, options.clock ? *options.clock : system_clock).run(std::move(objects));
}

}  // namespace opctl::apply
