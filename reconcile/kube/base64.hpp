// Base64 (RFC 4648, standard alphabet) for kubeconfig data fields and Secrets.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opctl::kube {

std::string base64_encode(std::string_view bytes);
// nullopt when `text` is not valid base64; whitespace is ignored.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace opctl::kube
