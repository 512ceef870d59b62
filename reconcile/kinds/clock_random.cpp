// The production RandomSource: tokens drawn
// from the kernel's CSPRNG (getrandom) with rejection sampling, so every
// character of the alphabet is equally likely.
#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds {
namespace {

constexpr std::string_view k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

class SystemRandom : public RandomSource {
 public:
  std::string token(std::size_t length) override {
    std::string text;
    text.reserve(length);
    // 62 * 4 = 248: bytes at or above it are dropped so the modulo is unbiased.
    constexpr unsigned k_limit = 248;
    while (text.size() < length) {
      std::array<unsigned char, 64> bytes{};
      fill(bytes.data(), bytes.size());
      for (unsigned char byte : bytes)
        if (byte < k_limit && text.size() < length) text.push_back(k_alphabet[byte % k_alphabet.size()]);
    }
    return text;
  }

 private:
  static void fill(unsigned char* buffer, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
      ssize_t got = getrandom(buffer + done, size - done, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0)
        throw Error(ErrorCategory::internal, std::string("getrandom failed: ") + std::strerror(errno));
      done += static_cast<std::size_t>(got);
    }
  }
};

}  // namespace

std::unique_ptr<RandomSource> system_random() {
  return std::make_unique<SystemRandom>();
}

}  // namespace opctl::kinds
