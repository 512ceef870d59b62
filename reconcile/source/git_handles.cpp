#include "source/git_handles.hpp"

#include <cstdlib>
#include <filesystem>

namespace opctl::source {

namespace {

struct Libgit2Runtime {
  Libgit2Runtime() {
    git_libgit2_init();
    // libgit2 runs no hooks or configured programs, so the ownership check git uses to protect
    // them only gets in the way of reading a checkout owned by another user (CI containers).
    git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
  }
};

// Honour the OpenSSL variables users already set for a private CA. Loading
// them parses every certificate (a directory holds hundreds), so only an
// https fetch pays for it.
struct EnvironmentTrust {
  EnvironmentTrust() {
    const char* file = std::getenv("SSL_CERT_FILE");
    const char* dir = std::getenv("SSL_CERT_DIR");
    if ((file && *file) || (dir && *dir))
      git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file && *file ? file : nullptr,
                       dir && *dir ? dir : nullptr);
  }
};

}  // namespace

void ensure_libgit2() {
  static const Libgit2Runtime runtime;  // once, thread-safe; libgit2 itself is the global state
  (void)runtime;
}

void trust_certificates_from_environment() {
  ensure_libgit2();
  static const EnvironmentTrust trust;  // once, like the runtime
  (void)trust;
}

GitFailure last_git_failure(int code) {
  GitFailure failure;
  failure.code = code;
  if (const git_error* error = git_error_last(); error != nullptr && error->message != nullptr) {
    failure.klass = error->klass;
    failure.message = error->message;
  } else {
    failure.message = "libgit2 error " + std::to_string(code);
  }
  return failure;
}

void check_cache(int code, const std::string& what) {
  if (code < 0) throw CacheCorrupted(what + ": " + last_git_failure(code).message);
}

}  // namespace opctl::source
