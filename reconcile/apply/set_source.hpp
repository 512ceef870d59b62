// The source a set was written from (repo URL without credentials and path,
// or the absolute directory), recorded on its ApplySet parent, so that a pass
// from elsewhere never prunes a set that is not its own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::apply {

inline constexpr const char* k_set_source_annotation = "opctl.io/set-source";

struct SetSourceCheck {
  std::string set;     // "namespace/opctl-name", for messages
  std::string source;  // this run's
  bool prune = false;
  bool take_over = false;
  // What a prune would delete ("Kind namespace/name"); asked only for the refusal's message.
  std::function<std::vector<std::string>()> would_delete;
};

struct SetSourceDecision {
  std::string record;   // the source to record on the parent
  std::string warning;  // non-empty when this run writes into a set recorded from another source
};

// The source recorded on a live parent; "" when none is (a set written before opctl recorded it).
std::string recorded_set_source(const model::Json& parent);

// Decides what to record. Throws InvalidInputError, naming both sources and
// what would be deleted, when a pruning run's source is not the recorded one
// and it was not told to take the set over.
SetSourceDecision decide_set_source(const std::optional<model::Json>& parent, const SetSourceCheck& check);

}  // namespace opctl::apply
