#include "notify/webhook_signature.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

#include "notify/notification_error.hpp"

namespace opctl::notify {

std::string webhook_signature(std::string_view key, std::string_view body) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest.data(),
           &length) == nullptr)
    throw NotificationError("could not sign the body (HMAC-SHA256 failed)");
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string signature = "sha256=";
  for (unsigned int i = 0; i < length; ++i) {
    signature += k_hex[digest[i] >> 4];
    signature += k_hex[digest[i] & 0x0f];
  }
  return signature;
}

}  // namespace opctl::notify
