// Keeping credentials out of every output: URLs with user information
// (https://user:token@host/...), and known secret strings, in any text opctl
// prints, logs, stores in an annotation or writes into a generated manifest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opctl::model {

// `text` with the user information of every scheme://user:secret@ URL in it
// removed (http, https) or its password replaced by *** (other schemes), and
// every string in `secrets` replaced by ***.
std::string redact_credentials(std::string_view text, const std::vector<std::string>& secrets = {});

// True when `url` carries a credential: a password in any scheme, or any user
// information in http(s) (a token is often written as the user name).
bool url_has_credentials(std::string_view url);

}  // namespace opctl::model
