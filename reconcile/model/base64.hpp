// The one base64 codec of the tree, written and read as Go's encoding/base64
// StdEncoding does: the API server decodes Secret data and every []byte field
// with it, and kubeconfig data, SOPS values and OpenSSH keys use the same. A
// value opctl accepts is one the server accepts, and the reverse.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opctl::model {

// The standard alphabet, padded with '='.
std::string base64_encode(std::string_view bytes);
// RFC 4648's URL alphabet ('-', '_') without padding, as kubectl writes ApplySet IDs.
std::string base64_url_encode_unpadded(std::string_view bytes);
// The bytes, or nullopt unless Go's StdEncoding.DecodeString accepts `text`:
// the standard alphabet in whole groups of four, padded with '=' at the end
// only; '\r' and '\n' are skipped anywhere, every other character (a space, a
// tab, '-', '_') is an error.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace opctl::model
