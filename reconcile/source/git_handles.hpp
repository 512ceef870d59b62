// RAII handles for libgit2's C objects and the one place its error codes turn
// into text. Every libgit2 call in opctl goes through these.
#pragma once

#include <git2.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace opctl::source {

template <auto Free>
struct GitFree {
  template <typename T>
  void operator()(T* handle) const {
    Free(handle);
  }
};

using RepositoryPtr = std::unique_ptr<git_repository, GitFree<git_repository_free>>;
using RemotePtr = std::unique_ptr<git_remote, GitFree<git_remote_free>>;
using ReferencePtr = std::unique_ptr<git_reference, GitFree<git_reference_free>>;
using ObjectPtr = std::unique_ptr<git_object, GitFree<git_object_free>>;
using CommitPtr = std::unique_ptr<git_commit, GitFree<git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, GitFree<git_tree_free>>;
using TreeEntryPtr = std::unique_ptr<git_tree_entry, GitFree<git_tree_entry_free>>;
using BlobPtr = std::unique_ptr<git_blob, GitFree<git_blob_free>>;
using StatusListPtr = std::unique_ptr<git_status_list, GitFree<git_status_list_free>>;
using ConfigPtr = std::unique_ptr<git_config, GitFree<git_config_free>>;

// A git_buf that frees itself.
struct GitBuffer {
  git_buf buffer = GIT_BUF_INIT;
  GitBuffer() = default;
  GitBuffer(const GitBuffer&) = delete;
  GitBuffer& operator=(const GitBuffer&) = delete;
  ~GitBuffer() { git_buf_dispose(&buffer); }
  std::string str() const { return buffer.ptr ? std::string(buffer.ptr, buffer.size) : std::string(); }
};

// Initialises libgit2 once per process (and its process-wide options).
void ensure_libgit2();
// Makes libgit2 trust SSL_CERT_FILE / SSL_CERT_DIR, once per process; for https.
void trust_certificates_from_environment();

// What libgit2 said about the last failure on this thread.
struct GitFailure {
  int code = 0;
  int klass = GIT_ERROR_NONE;
  std::string message;
};
GitFailure last_git_failure(int code);

// A local read of the cache failed in a way that means its contents are
// damaged; the git source removes the cache and clones again.
class CacheCorrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws CacheCorrupted naming `what` when `code` is an error.
void check_cache(int code, const std::string& what);

}  // namespace opctl::source
