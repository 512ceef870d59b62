// Answers "would a server-side apply by opctl change the live object?" for
// every desired object: the fast path from live state first, then the
// server's dry run for the rest, and a local comparison where the dry run is
// Forbidden.
#pragma once

#include <string>
#include <vector>

#include "apply/live_state.hpp"
#include "diff/normalize.hpp"
#include "diff/object_diff.hpp"
#include "kube/api_client.hpp"

namespace opctl::apply {

// `opctl.io/diff: ignore` on a desired object: never reported as changed
// (an absent one is still shown as added: a pass would create it).
inline constexpr const char* k_diff_ignore_annotation = diff::k_diff_annotation;
inline constexpr const char* k_diff_ignore_value = "ignore";

struct DiffPassOptions {
  std::string field_manager = kube::k_field_manager;
  diff::CompareOptions compare;
};

struct DiffPassResult {
  // In the order of the desired objects; an unchanged one has no before/after.
  std::vector<diff::ObjectDiff> diffs;
  std::size_t fast_path = 0;  // objects decided without a request of their own
  std::size_t dry_runs = 0;
};

// True when live state alone says `desired` is unchanged (the fast path, or
// `opctl.io/diff: ignore`); the diff then needs no more of the live object.
bool decided_from_live(const model::Object& desired, const model::Json& live, const DiffPassOptions& options);

// The live state options a diff reads with: objects the fast path does not
// decide are kept whole, the live side of what is shown.
LiveStateOptions live_state_for_diff(const DiffPassOptions& options, LiveStateOptions read = {});

// `desired` must already carry what opctl adds (labels, source annotation);
// `live` must hold whole every object decided_from_live does not decide.
DiffPassResult diff_against_live(kube::ApiClient& client, const std::vector<model::Object>& desired,
                                 const LiveState& live, const DiffPassOptions& options);

}  // namespace opctl::apply
