// Built by ctest (layering_include_against_direction), expected to fail: plan
// is below apply, so apply's headers are not on its include path.
#include "apply/health_rules.hpp"
