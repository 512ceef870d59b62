#pragma once

#include <string>
#include <string_view>

namespace opctl::model {

// `text` with A-Z turned into a-z and every other byte kept: Kubernetes
// names, URL schemes, host names and cron words are ASCII, and a locale's
// rules must not change how they compare.
std::string ascii_lower(std::string_view text);

}  // namespace opctl::model
