// Built by ctest (layering_include_along_direction): plan links model, so
// model's headers and its own are visible.
#include "model/object.hpp"
#include "plan/apply_order.hpp"
