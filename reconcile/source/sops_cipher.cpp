#include "source/sops_cipher.hpp"

#include <openssl/evp.h>

#include <array>
#include <memory>

#include "model/base64.hpp"

namespace opctl::source::sops {
namespace {

constexpr std::string_view k_prefix = "ENC[AES256_GCM,";

// The value of `name:` in the comma-separated fields of an ENC[...] value.
std::optional<std::string_view> field(std::string_view fields, std::string_view name) {
  for (std::size_t start = 0; start <= fields.size();) {
    std::size_t comma = fields.find(',', start);
    std::string_view part = fields.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (part.size() > name.size() && part.starts_with(name) && part[name.size()] == ':')
      return part.substr(name.size() + 1);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return std::nullopt;
}

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

}  // namespace

bool looks_encrypted(std::string_view text) {
  return text.starts_with("ENC[");
}

std::optional<EncryptedValue> parse_encrypted_value(std::string_view text) {
  if (!text.starts_with(k_prefix) || !text.ends_with(']')) return std::nullopt;
  std::string_view fields = text.substr(k_prefix.size(), text.size() - k_prefix.size() - 1);
  auto data = field(fields, "data");
  auto iv = field(fields, "iv");
  auto tag = field(fields, "tag");
  auto type = field(fields, "type");
  if (!data || !iv || !tag || !type) return std::nullopt;
  auto data_bytes = model::base64_decode(*data);
  auto iv_bytes = model::base64_decode(*iv);
  auto tag_bytes = model::base64_decode(*tag);
  if (!data_bytes || !iv_bytes || !tag_bytes || iv_bytes->empty() || tag_bytes->size() != 16)
    return std::nullopt;
  return EncryptedValue{std::move(*data_bytes), std::move(*iv_bytes), std::move(*tag_bytes),
                        std::string(*type)};
}

std::optional<std::string> decrypt_value(const EncryptedValue& value, std::string_view key,
                                         std::string_view additional_data) {
  if (key.size() != 32) return std::nullopt;
  CipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!context) return std::nullopt;
  auto bytes = [](std::string_view text) { return reinterpret_cast<const unsigned char*>(text.data()); };
  // SOPS uses a 32-byte nonce; GCM takes any length once told.
  if (EVP_DecryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(value.iv.size()),
                          nullptr) != 1 ||
      EVP_DecryptInit_ex(context.get(), nullptr, nullptr, bytes(key), bytes(value.iv)) != 1)
    return std::nullopt;
  int length = 0;
  if (!additional_data.empty() && EVP_DecryptUpdate(context.get(), nullptr, &length, bytes(additional_data),
                                                    static_cast<int>(additional_data.size())) != 1)
    return std::nullopt;
  std::string plain(value.data.size(), '\0');
  auto* out = reinterpret_cast<unsigned char*>(plain.data());
  if (!value.data.empty() && EVP_DecryptUpdate(context.get(), out, &length, bytes(value.data),
                                               static_cast<int>(value.data.size())) != 1)
    return std::nullopt;
  std::string tag = value.tag;
  if (EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag.size()), tag.data()) != 1)
    return std::nullopt;
  int final_length = 0;
  if (EVP_DecryptFinal_ex(context.get(), out + length, &final_length) != 1) return std::nullopt;
  return plain;
}

struct MacHash::State {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
};

MacHash::MacHash() : state_(std::make_unique<State>()) {
  EVP_DigestInit_ex(state_->context.get(), EVP_sha512(), nullptr);
}

MacHash::~MacHash() = default;

void MacHash::add(std::string_view bytes) {
  EVP_DigestUpdate(state_->context.get(), bytes.data(), bytes.size());
}

std::string MacHash::hex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(state_->context.get(), digest.data(), &length);
  constexpr std::string_view k_digits = "0123456789ABCDEF";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += k_digits[digest[i] >> 4];
    out += k_digits[digest[i] & 0xF];
  }
  return out;
}

}  // namespace opctl::source::sops
