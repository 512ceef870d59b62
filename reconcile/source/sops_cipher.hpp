// The cryptography of a SOPS file: its values are AES-256-GCM ciphertexts
// written as ENC[AES256_GCM,data:...,iv:...,tag:...,type:...], each bound to
// its path in the document by the additional data, and the file carries a MAC
// (SHA-512 over the plaintext values) encrypted the same way.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace opctl::source::sops {

struct EncryptedValue {
  std::string data;  // the ciphertext, decoded from base64
  std::string iv;
  std::string tag;
  std::string type;  // str, int, float, bool, bytes, time, comment
};

// nullopt when `text` is not an ENC[AES256_GCM,...] value.
std::optional<EncryptedValue> parse_encrypted_value(std::string_view text);

// True when `text` starts like a SOPS ciphertext (even a malformed one).
bool looks_encrypted(std::string_view text);

// The plaintext bytes; nullopt when the tag does not verify (a wrong key, a
// changed ciphertext, or a value moved to another path).
std::optional<std::string> decrypt_value(const EncryptedValue& value, std::string_view key,
                                         std::string_view additional_data);

// SHA-512 as SOPS writes its MAC: upper-case hexadecimal.
class MacHash {
 public:
  MacHash();
  ~MacHash();
  MacHash(const MacHash&) = delete;
  MacHash& operator=(const MacHash&) = delete;
  void add(std::string_view bytes);
  std::string hex();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace opctl::source::sops
