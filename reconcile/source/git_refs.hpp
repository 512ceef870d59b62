// What a --ref value may name, in the order git itself tries: the references
// to look up in the cache (where branches live under refs/remotes/origin/) and
// whether it may also be a commit id.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opctl::source {

inline constexpr std::string_view k_remote_branches = "refs/remotes/origin/";

struct RefCandidates {
  bool commit_first = false;            // a full 40-hex SHA: an object name before any reference
  bool may_be_commit = false;           // 4 to 40 hex digits: also try it as a (short) commit id
  std::vector<std::string> references;  // full reference names in the cache, in lookup order
};

// "v1.2" -> refs/tags/v1.2, refs/remotes/origin/v1.2 (tags first, as git rev-parse);
// "refs/heads/x" -> refs/remotes/origin/x; "refs/tags/x" -> itself; "abc1234" -> also a commit.
RefCandidates ref_candidates(std::string_view ref);

bool is_full_commit_id(std::string_view ref);

// A name in refs/heads/ as the user would type it: "refs/heads/main" -> "main".
std::string branch_short_name(std::string_view reference);

}  // namespace opctl::source
