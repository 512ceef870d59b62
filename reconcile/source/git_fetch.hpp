// Fetching into the cache: connect to origin (credentials, host key, proxy from
// the environment), learn the remote's default branch, and download only the
// objects the cache lacks for all branches and tags (forced, pruned).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "source/git_credentials.hpp"
#include "source/git_handles.hpp"
#include "source/git_url.hpp"

namespace opctl::source {

struct FetchResult {
  std::string default_branch;  // "refs/heads/main" as the remote's HEAD names it; empty when it names none
  std::size_t received_objects = 0;
};

// `context` names the repository and ref in messages ("https://host/repo.git (ref main)").
// Throws ClusterError for network, authentication and host-key failures (with the
// reason, credentials redacted) and CacheCorrupted when the cache's own objects
// are what failed. `on_transfer`, when set, hears libgit2's transfer progress as
// the pack arrives.
FetchResult fetch_origin(git_repository& repository, const GitUrl& url, const GitAuth& auth,
                         const std::string& context,
                         const std::function<void(const git_indexer_progress&)>& on_transfer = {});

// Collapses a libgit2 message to one line and removes every credential from it.
std::string one_line(const std::string& message, const GitAuth& auth);

}  // namespace opctl::source
