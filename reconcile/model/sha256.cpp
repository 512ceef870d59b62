#include "model/sha256.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include "model/error.hpp"

namespace opctl::model {

std::array<std::uint8_t, 32> sha256(std::string_view data) {
  std::array<std::uint8_t, 32> digest{};
  unsigned int length = 0;
  // OpenSSL's, which the binary links for TLS and SOPS already.
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1 ||
      length != digest.size())
    throw Error(ErrorCategory::internal, "OpenSSL could not compute a SHA-256 digest");
  return digest;
}

std::string sha256_hex(std::string_view data) {
  auto digest = sha256(data);
  return fmt::format("{:02x}", fmt::join(digest, ""));
}

}  // namespace opctl::model
