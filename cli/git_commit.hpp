#pragma once

#include <string_view>

namespace opctl::cli {
// The commit opctl was built from (git rev-parse --short=12), stamped at build time; "unknown" outside a
// checkout.
std::string_view git_commit();
}  // namespace opctl::cli
