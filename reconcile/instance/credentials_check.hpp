// What the instance manager checks of the Cluster's Secrets before it uses
// them, and how it keeps their values out of what it publishes.
#pragma once

#include <optional>
#include <string>

#include "instance/instance_inputs.hpp"

namespace opctl::instance {

// Why `credentials` cannot be used, naming the Secret and key (never the
// value): a control character (a newline written from a file, a tab) breaks
// the passfile and initdb's password file, which are line-based, and no
// client could type it. nullopt when every value is usable.
std::optional<std::string> credentials_problem(const Credentials& credentials, const std::string& cluster);

// `text` with every password of `credentials` replaced by "<redacted>": an
// error message is published on the Pod, in the Cluster's status and by
// `opctl status`, which anyone who may read Pods sees.
std::string without_passwords(std::string text, const Credentials& credentials);

}  // namespace opctl::instance
