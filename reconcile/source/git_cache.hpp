// The on-disk cache of fetched repositories: one bare repository per URL under
// $XDG_CACHE_HOME/opctl/git (or --cache-dir), an flock-ed lock file beside it
// so concurrent runs take turns, and the checks that replace a cache that is
// damaged or that belongs to another URL.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "source/git_handles.hpp"

namespace opctl::source {

struct CacheEnvironment {
  std::string xdg_cache_home;  // $XDG_CACHE_HOME
  std::string home;            // $HOME

  static CacheEnvironment from_process();
};

// --cache-dir when given, else $XDG_CACHE_HOME/opctl/git, else ~/.cache/opctl/git.
std::filesystem::path cache_root(const std::string& cache_dir, const CacheEnvironment& environment);

// "<last path part of the URL>-<first 16 bytes of SHA-256(url), hex>": readable and unique.
std::string cache_entry_name(std::string_view fetch_url);

// Holds an exclusive flock on `<entry>.lock` for its lifetime; when another run
// holds it, calls `on_wait` once and then waits for it.
class CacheLock {
 public:
  CacheLock(const std::filesystem::path& entry, const std::function<void(const std::string&)>& on_wait);
  ~CacheLock();
  CacheLock(const CacheLock&) = delete;
  CacheLock& operator=(const CacheLock&) = delete;

 private:
  int fd_ = -1;
};

using WarningSink = std::function<void(const std::string&)>;

// Opens the bare repository at `entry`, creating it (with remote "origin" set to
// `fetch_url` and refspecs for branches and tags) when missing, and recreating
// it with a warning when it is unusable or was made for another URL.
RepositoryPtr open_cache(const std::filesystem::path& entry, const std::string& fetch_url,
                         const WarningSink& warn);

// Cheap consistency check after a failed fetch: every reference resolves to a
// commit whose tree can be read.
bool cache_is_readable(git_repository& repository);

}  // namespace opctl::source
