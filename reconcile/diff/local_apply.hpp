// What a server-side apply would make of a live object, computed here for
// when the server's dry run is Forbidden (read-only CI credentials). It
// follows SSA's rules as far as they can be known without the schema:
// fields the manager owned and no longer applies are removed, maps merge,
// associative lists merge by the keys managedFields names (or the usual
// Kubernetes merge keys), other lists are replaced whole. Server defaults for
// new fields are not filled in, so results are marked "local comparison".
#pragma once

#include <string>

#include "model/object.hpp"

namespace opctl::diff {

model::Json local_apply(const model::Json& live, const model::Json& desired, const std::string& manager);

}  // namespace opctl::diff
