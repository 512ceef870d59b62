// From a --ref to a commit in the cache, and from a commit to what a run
// records about it (SHA, author, time, subject).
#pragma once

#include <cstdint>
#include <string>

#include "source/desired_source.hpp"
#include "source/git_handles.hpp"

namespace opctl::source {

struct ResolvedRef {
  CommitPtr commit;
  std::string name;  // the ref as the revision records it: as given, or the default branch's name
};

// Looks `ref` up as a tag, a branch (refs/remotes/origin/), then a full or short
// commit id; an empty ref is the remote's default branch (`default_branch`, e.g.
// "refs/heads/main", or the cached refs/remotes/origin/HEAD). Throws
// InvalidInputError naming `repo_display` when nothing matches.
ResolvedRef resolve_ref(git_repository& repository, const std::string& ref, const std::string& default_branch,
                        const std::string& repo_display);

// Fills commit, author ("Name <email>"), time (the commit time) and subject from `commit`.
void describe_commit(git_commit& commit, SourceRevision& revision);

// RFC 3339 for seconds since the epoch in a zone `offset_minutes` east of UTC.
std::string rfc3339(std::int64_t seconds, int offset_minutes);

std::string short_commit_id(const std::string& full);

}  // namespace opctl::source
