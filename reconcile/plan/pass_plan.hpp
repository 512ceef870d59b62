// A pass as data: every step it will take (create, update, unchanged, prune,
// keep), each with its reason, wave and rank, and the waits between waves,
// decided from the desired set and live state alone, without a request.
// `opctl reconcile --dry-run` reports it as it is; apply/ executes it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "diff/ignore_rules.hpp"
#include "model/object.hpp"

namespace opctl::plan {

enum class StepAction {
  create,     // not in the cluster
  update,     // applying it would change the live object
  unchanged,  // applying it would change nothing: no request
  prune,      // a member of the set no longer desired
  keep,       // would be pruned, but opctl.io/prune: disabled
};

const char* to_string(StepAction action);

struct PlanStep {
  StepAction action = StepAction::unchanged;
  model::ObjectKey key;
  std::string api_version;
  long wave = 0;
  int rank = 0;
  std::string reason;
  // Apply steps: the object as it is sent, an index into PassPlan::objects.
  std::size_t object = 0;
  // Prune and keep steps: the live member (its uid guards the delete).
  model::Json live;

  bool applies() const { return action == StepAction::create || action == StepAction::update; }
};

// One (wave, kind rank) group of apply steps, sent concurrently.
struct ApplyBatch {
  int rank = 0;
  std::vector<std::size_t> steps;  // indices into PassPlan::steps
  // CRDs: the next batch may hold their custom resources, so the pass waits
  // until they are Established and discovery serves them.
  bool waits_for_crds = false;
};

struct PlanWave {
  long wave = 0;
  std::vector<ApplyBatch> batches;
  // With --wait: the steps whose objects must be healthy before the next
  // wave starts (every step of the wave but the kinds health skips).
  std::vector<std::size_t> health_waits;
};

struct PassPlan {
  // The desired objects as they are sent: fields opctl.yaml ignores keep
  // their live values, opctl.io/source keeps its live value when nothing
  // else changes (a pass where only the commit moved sends nothing).
  std::vector<model::Object> objects;
  // Apply steps in apply order, then prune and keep steps in deletion order.
  std::vector<PlanStep> steps;
  std::vector<PlanWave> waves;
  // Prune steps in deletion order, one batch per kind rank: reverse apply
  // order, custom resources and workloads before Namespaces and CRDs.
  std::vector<std::vector<std::size_t>> prune_batches;

  std::size_t count(StepAction action) const;
};

// A desired object whose LIST item already showed that the pass leaves it
// unchanged (settles()): the live object was dropped as it was parsed, and of
// it the plan keeps only what decide() would still copy into the object.
struct SettledObject {
  std::optional<std::string> source;  // opctl.io/source as live has it, if a string
};

// Live state as the plan reads it. At N = 5000, a trimmed live object for
// every unchanged object was the largest part of a no-op pass's memory; a
// settled one costs its key and one annotation.
struct LiveObjects {
  std::map<model::ObjectKey, model::Json> objects;  // whole or trimmed (diff/trimmed_live.hpp)
  std::map<model::ObjectKey, SettledObject> settled;

  // The live object (nullptr when absent or settled).
  const model::Json* find(const model::ObjectKey& key) const {
    auto found = objects.find(key);
    return found == objects.end() ? nullptr : &found->second;
  }
};

struct PlanOptions {
  std::string field_manager;
  std::vector<diff::IgnoreRule> ignore_rules;
  bool prune = false;
  bool wait = false;
  std::vector<std::pair<std::string, std::string>> skip_health;  // (group, kind)
};

// True when the pass would leave `desired` unchanged (as make_pass_plan
// decides it) and needs no more of `live` than SettledObject keeps: an object
// an ignore rule matches is never settled, since it is sent with live values.
bool settles(const model::Object& desired, const model::Json& live, const PlanOptions& options);

// The part of `live` a settled object keeps.
SettledObject settled_object(const model::Json& live);

// Cuts a desired object that settled down to what a pass still reads of it:
// apiVersion, kind, and metadata's name, namespace, labels and annotations
// (its key, wave and opctl.io/source). Called as each object settles, a
// no-op pass holds a desired object's content only until its LIST item is
// read; at 20,000 objects the content was the largest part of its memory.
void keep_settled_identity(model::Object& desired);

// `desired`: the set's objects, labelled and with namespaces resolved;
// `live`: the live objects of desired keys (settled with these options);
// `members`: the live members of the set's inventory (read only when
// pruning). Throws InvalidInputError when a wave annotation is not an integer.
PassPlan make_pass_plan(std::vector<model::Object> desired, const LiveObjects& live,
                        const std::vector<model::Json>& members, const PlanOptions& options);

// The prune and keep steps alone, in deletion order: members of the set whose
// keys are not desired (what `opctl diff --prune` previews).
std::vector<PlanStep> prune_steps(const std::vector<model::Json>& members,
                                  const std::set<model::ObjectKey>& desired);

// "Kind namespace/name" of each prune step (not the kept ones), in order: what a refusal names.
std::vector<std::string> pruned_names(const std::vector<PlanStep>& steps);

}  // namespace opctl::plan
