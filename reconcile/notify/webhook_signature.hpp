// The signature of a webhook's body, so that its receiver can tell a
// notification from opctl from anyone else's POST: HMAC-SHA256 of the exact
// body bytes with a key both sides hold, sent as
// `X-Opctl-Signature-256: sha256=<hex>` (GitHub's X-Hub-Signature-256 scheme,
// which receivers already know how to check).
#pragma once

#include <string>
#include <string_view>

namespace opctl::notify {

inline constexpr const char* k_signature_header = "X-Opctl-Signature-256";

// "sha256=" and the lowercase hex HMAC-SHA256 of `body` under `key`.
std::string webhook_signature(std::string_view key, std::string_view body);

}  // namespace opctl::notify
