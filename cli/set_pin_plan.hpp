// How reconcile and rollback honour the set's pin (apply/set_pin.hpp): before
// the source is loaded, the pin on the set's ApplySet parent decides which
// commit is loaded (the pinned one, or the ref's head); a rollback points the
// source at --to instead and pins the set when its pass writes.
#pragma once

#include <string>

#include "apply/run_history.hpp"
#include "apply/set_pin.hpp"
#include "common_options.hpp"
#include "model/object.hpp"
#include "source/desired_source.hpp"

namespace opctl::cli {

// What `opctl rollback` asks for; empty for `opctl reconcile`.
struct PinRequest {
  std::string to;                 // --to REVISION
  bool until_new_commit = false;  // --until-new-commit
  bool unpin = false;             // --unpin
  bool rollback() const { return !to.empty(); }
};

struct PinPlan {
  bool planned = false;  // the parent was read (a set not named before loading is planned once loaded)
  bool reload = false;   // the source now points elsewhere than at the ref's head
  apply::PinAction action;
  std::string followed_ref;  // the ref the set follows (its head's name), "" when not fetched
  std::string head_commit;   // the ref's head, "" when not fetched
  std::string note;          // one line for the output: what the pin did to this pass
  model::Json report;        // the RunReport's "pin" (null when the set is not pinned)
};

// Decides what this run loads and points `common.source` at it. A rollback
// first checks the source has revisions (a git repository or a directory in
// a git work tree; InvalidInputError otherwise). For a reconcile, a set not
// named yet (its name is in an opctl.yaml inside the source) is not planned.
PinPlan plan_pin(CommonOptions& common, const PinRequest& request);

// Once the source is loaded: the commit a rollback pins (InvalidInputError
// for a set without a name, which has no parent to pin), and the note.
void complete_pin_plan(PinPlan& plan, const CommonOptions& common, const PinRequest& request,
                       const source::SourceRevision& loaded);

// The history's record of where this pass's objects came from.
apply::RunOrigin run_origin(const source::SourceRevision& loaded, const PinPlan& plan,
                            const PinRequest& request);

}  // namespace opctl::cli
