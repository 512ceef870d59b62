// The set's run history: one entry per pass (the last k_history_entries,
// newest first), kept in the opctl.io/history annotation of the ApplySet
// parent, beside the last-run record. `opctl history` reads it.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "apply/pass_report.hpp"
#include "model/object.hpp"

namespace opctl::apply {

inline constexpr const char* k_history_annotation = "opctl.io/history";
// Bounded in entries and in bytes: the parent's annotations share 256 KiB
// with the ApplySet's own, and every pass rewrites them.
inline constexpr std::size_t k_history_entries = 20;
inline constexpr std::size_t k_history_bytes = 32 * 1024;
// A longer message (a failed pass's) is cut, so one entry never crowds out the rest.
inline constexpr std::size_t k_history_message_chars = 300;

// Where a pass's objects came from, as the history records it (plain
// strings: apply knows no git). Empty fields are left out of the entry.
struct RunOrigin {
  std::string revision;  // "repo@sha:path", or the directory
  std::string repo;
  std::string ref;     // the ref followed (the branch), even when a pin applied another commit
  std::string commit;  // what was applied
  std::string path;
  std::string subject;
  std::string signer;     // who signed the commit, when --verify-commits checked it: "principal (key)"
  std::string pinned;     // the pinned commit this pass applied instead of the ref's head
  bool rollback = false;  // the pass of `opctl rollback`
};

// One entry: id, start, duration, result, counts, message and the origin.
model::Json history_entry(const PassReport& report, const RunOrigin& origin,
                          std::chrono::milliseconds duration);

// The entries recorded on a parent, newest first: the history annotation, or
// for a set last written before opctl kept one, its last-run record as the
// only entry. Unreadable text is no history (it is rewritten by the next pass).
model::Json parse_history(const std::string& history, const std::string& last_run);

// `history` with `entry` first (given the next id), bounded to
// k_history_entries and k_history_bytes (oldest entries go first); the
// annotation's text.
std::string append_history(const model::Json& history, model::Json entry);

}  // namespace opctl::apply
