// A live object cut down to what a pass reads of it once the fast path
// (field_ownership.hpp) has decided it: its identity and metadata, the
// manager's managedFields entry, the values at the fields that entry owns and
// those ignoreDifferences rules name. The rest (server defaults, status, other
// managers' entries) is most of an object's size, and a pass over thousands
// of unchanged objects never reads it. The manager's FieldsV1 tree is kept as
// its JSON text, which applied_fields (field_ownership.hpp) reads as well.
#pragma once

#include <string>
#include <vector>

#include "model/object.hpp"

namespace opctl::diff {

struct TrimOptions {
  std::string manager;
  // The JSON pointers of the ignoreDifferences rules that match the object:
  // a pass sends their live values back (keep_live_values_of_ignored_fields).
  std::vector<std::string> ignored_pointers;
  // Keep status whole: a CRD's conditions and a custom kind's status are
  // read from live state.
  bool keep_status = false;
};

// For every desired object, apply_is_noop and keep_live_values_of_ignored_fields
// (with the same manager and rules) answer on the trimmed object exactly as
// on `live`. Keyed and set lists keep only the elements an entry of the
// manager names, in live order; an element two entries name stays whole.
model::Json trim_live(const model::Json& live, const TrimOptions& options);

}  // namespace opctl::diff
