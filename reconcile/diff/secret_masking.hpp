// Secret values never reach output: each is replaced by "***", and by
// "*** (before)" / "*** (after)" where it changed, as kubectl diff does.
#pragma once

#include <string>
#include <string_view>

#include "model/object.hpp"

namespace opctl::diff {

inline constexpr const char* k_masked = "***";
inline constexpr const char* k_masked_before = "*** (before)";
inline constexpr const char* k_masked_after = "*** (after)";

// Masks data and stringData of `before` and `after` when they are Secrets
// (either may be null: added or pruned objects).
void mask_secret_pair(model::Json& before, model::Json& after);

// True when the object is a core/v1 Secret.
bool is_secret(const model::Json& object);

// What the server stores for a Secret: stringData encoded into data (where it
// wins over data), and no stringData. Other objects are returned as they are.
model::Json fold_string_data(model::Json object);

}  // namespace opctl::diff
