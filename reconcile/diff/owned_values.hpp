// The part of a live object that one field manager owns, read from its
// managedFields entry (FieldsV1).
//
// A controller that must re-send an object it cannot rebuild (a Pod whose
// spec is immutable, a volume claim) applies exactly these values: sending
// the whole live object would make its manager own the fields the server
// defaulted, and leaving any owned field out would make the server remove it.
#pragma once

#include <optional>
#include <string>

#include "model/object.hpp"

namespace opctl::diff {

// `value` restricted to the fields the FieldsV1 node `owned` lists. A leaf
// node (an atomic struct or list, or a scalar) keeps its value whole; keyed
// list elements keep their key fields; the live order of lists is kept.
model::Json owned_values(const model::Json& value, const model::Json& owned);

// The fields `manager` applied to `live`, or nullopt when it has no Apply entry.
std::optional<model::Json> owned_part(const model::Json& live, const std::string& manager);

}  // namespace opctl::diff
