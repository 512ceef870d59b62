// A set pinned at a commit by `opctl rollback`: every pass applies that
// commit instead of the head of the ref it follows, until `opctl rollback
// --unpin` (or, when asked, a new commit on the ref) lifts the pin. The pin is
// the opctl.io/pinned annotation of the ApplySet parent, written by the
// rollback's own pass.
#pragma once

#include <optional>
#include <string>

#include "model/object.hpp"

namespace opctl::apply {

inline constexpr const char* k_pin_annotation = "opctl.io/pinned";

struct SetPin {
  std::string commit;             // full SHA applied while pinned
  std::string revision;           // as the user named it (--to): a tag, a branch, a short SHA
  std::string ref;                // the ref the set follows
  std::string ref_commit;         // the ref's head when the set was pinned ("" when unknown)
  bool until_new_commit = false;  // a head other than ref_commit lifts the pin
  std::string by;                 // who pinned: user@host
  std::string time;               // when, RFC 3339

  model::Json to_json() const;
  // The pin a parent carries; nullopt when none (or its text is unreadable).
  static std::optional<SetPin> of(const std::optional<model::Json>& parent);
  static std::optional<SetPin> parse(const std::string& text);
};

// What a pass does with the pin it finds on the parent.
struct PinAction {
  enum class Kind { keep, pin, unpin };
  Kind kind = Kind::keep;
  SetPin pin;  // Kind::pin: the pin to record
  // Kind::keep and unpin: the pinned commit this run saw before loading its
  // source ("" for none). A pass that finds another refuses before changing
  // anything: a rollback or unpin ran in between, and applying what this run
  // loaded would undo it.
  std::string expected_commit;
  bool check_expected = false;
};

// Throws Error (lock_held) when the pin on `parent` is not the one `action` expected.
void check_pin_unchanged(const std::optional<model::Json>& parent, const PinAction& action,
                         const std::string& set);

// The pin annotation's text after the pass ("" = none), from the one found.
std::string pin_after(const std::string& found, const PinAction& action);

// What a pass of a set that follows a ref should apply, given the pin found.
struct PinDecision {
  std::string load_commit;  // the commit to apply instead of the head; "" = the head
  bool lift = false;        // the pin is to be removed: a new commit arrived (until_new_commit)
};
// `head_commit` is the ref's head as fetched ("" when unknown: the pin holds).
PinDecision decide_pin(const std::optional<SetPin>& pin, const std::string& head_commit);

}  // namespace opctl::apply
