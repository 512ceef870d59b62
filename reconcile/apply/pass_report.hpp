// What a pass did, object by object: the outcomes the CLI renders, the run
// record and the Events are made from.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "apply/health_rules.hpp"
#include "model/object.hpp"

namespace opctl::apply {

enum class Action {
  created,
  configured,
  unchanged,
  pruned,
  kept,     // would be pruned, but prune is disabled for it
  failed,   // the request failed
  skipped,  // not attempted: an earlier wave failed or timed out, or the pass was interrupted
  planned_create,
  planned_update,
  planned_prune,  // --dry-run
};

const char* to_string(Action action);

struct ObjectOutcome {
  model::ObjectKey key;
  std::string api_version;
  model::SourceLocation location;
  long wave = 0;
  Action action = Action::failed;
  std::string message;
  std::optional<HealthStatus> health;  // with --wait
};

// interrupted: SIGTERM/SIGINT; the pass finished the batch in flight and stopped.
enum class PassResult { succeeded, failed, timed_out, unhealthy, interrupted };

const char* to_string(PassResult result);

struct PassReport {
  std::vector<ObjectOutcome> outcomes;
  PassResult result = PassResult::succeeded;
  std::string message;  // why the pass did not succeed
  std::chrono::system_clock::time_point started;
  std::chrono::milliseconds duration{0};
  bool dry_run = false;

  std::size_t count(Action action) const;
};

}  // namespace opctl::apply
