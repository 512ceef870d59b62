// The fast path of the diff: decides from one LIST, with no request per
// object, that a server-side apply by opctl would leave an object unchanged.
//
// It holds when every field opctl would apply already has that value live and
// the fields opctl's manager owns (managedFields, FieldsV1) are exactly the
// fields of the desired object. The FieldsV1 tree also says how each list is
// merged (k: keys for associative lists, v: for sets, a leaf for atomic
// lists), so no schema is needed; keyed and set lists must also keep their
// order, since an apply reorders them. Whenever the answer is not certain it
// returns false and the caller asks the server (a dry run).
#pragma once

#include <optional>
#include <string>

#include "model/object.hpp"

namespace opctl::diff {

// The FieldsV1 tree of `manager`'s Apply entry in live's managedFields (also kept as its JSON text).
std::optional<model::Json> applied_fields(const model::Json& live, const std::string& manager);

// True when a FieldsV1 list entry, "k:{...}" (the key fields of an
// associative list element) or "v:..." (a set member), names `element`.
bool entry_names(const std::string& entry, const model::Json& element);

// True when a FieldsV1 node owns something below itself: an entry other than
// "." (which marks the node itself as owned).
bool owns_children(const model::Json& owned);

// The value the server gives a list-map key field of a built-in kind when an
// element leaves it out ("protocol" -> "TCP"), if there is one.
std::optional<std::string> known_key_default(const std::string& field);

// True only when applying `desired` with `manager` is certain to be a no-op.
bool apply_is_noop(const model::Json& desired, const model::Json& live, const std::string& manager);

}  // namespace opctl::diff
