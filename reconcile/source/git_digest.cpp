#include "source/git_digest.hpp"

#include <openssl/evp.h>

#include <array>

#include "model/error.hpp"
#include "model/sha256.hpp"

namespace opctl::source {
namespace {

[[noreturn]] void digest_failed(const char* what) {
  throw Error(ErrorCategory::internal, std::string("OpenSSL could not compute ") + what);
}

}  // namespace

std::string sha256(std::string_view data) {
  auto digest = model::sha256(data);
  return std::string(digest.begin(), digest.end());
}

std::string sha1(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha1(), nullptr) != 1)
    digest_failed("a SHA-1 digest");
  return std::string(reinterpret_cast<const char*>(digest.data()), length);
}

std::string hmac_sha1(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  std::size_t length = 0;
  if (EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA1", nullptr, key.data(), key.size(),
                reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac.data(), mac.size(),
                &length) == nullptr)
    digest_failed("an HMAC-SHA-1");
  return std::string(reinterpret_cast<const char*>(mac.data()), length);
}

std::string to_hex(std::string_view bytes) {
  constexpr std::string_view digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char byte : bytes) {
    out.push_back(digits[byte >> 4]);
    out.push_back(digits[byte & 0xf]);
  }
  return out;
}

}  // namespace opctl::source
