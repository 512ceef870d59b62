// ~/.netrc, the file curl and git read for HTTP credentials when none are
// given: "machine HOST login USER password SECRET", or a "default" entry.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opctl::source {

struct NetrcEntry {
  std::string login;
  std::string password;
};

// The entry for `host` (the first "machine" that names it, else "default").
std::optional<NetrcEntry> find_netrc_entry(std::string_view text, std::string_view host);

}  // namespace opctl::source
