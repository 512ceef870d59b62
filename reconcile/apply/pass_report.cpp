#include "apply/pass_report.hpp"

#include <algorithm>

namespace opctl::apply {

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

}  // namespace opctl::apply
