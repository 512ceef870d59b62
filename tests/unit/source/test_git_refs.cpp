// --ref classification: what a name may be, in git's order.
#include <catch2/catch.hpp>

#include "source/git_refs.hpp"

using opctl::source::ref_candidates;

TEST_CASE("a plain name is tried as a tag, then as a branch", "[git_refs]") {
  auto candidates = ref_candidates("main");
  CHECK(candidates.references == std::vector<std::string>{"refs/tags/main", "refs/remotes/origin/main"});
  CHECK_FALSE(candidates.may_be_commit);
  CHECK_FALSE(candidates.commit_first);
}

TEST_CASE("full reference names map to the cache's namespaces", "[git_refs]") {
  CHECK(ref_candidates("refs/heads/release/1.x").references ==
        std::vector<std::string>{"refs/remotes/origin/release/1.x"});
  CHECK(ref_candidates("refs/tags/v1").references == std::vector<std::string>{"refs/tags/v1"});
}

TEST_CASE("hex names may also be commits; a full SHA is a commit first", "[git_refs]") {
  auto short_sha = ref_candidates("abc1234");
  CHECK(short_sha.may_be_commit);
  CHECK_FALSE(short_sha.commit_first);
  CHECK(short_sha.references.size() == 2);  // a branch may be called "abc1234"
  auto full = ref_candidates("0123456789abcdef0123456789abcdef01234567");
  CHECK(full.commit_first);
  CHECK(opctl::source::is_full_commit_id("0123456789abcdef0123456789abcdef01234567"));
  CHECK_FALSE(ref_candidates("abc").may_be_commit);        // too short to mean a commit
  CHECK_FALSE(ref_candidates("deadbeefx").may_be_commit);  // not hex
}

TEST_CASE("branch short names", "[git_refs]") {
  CHECK(opctl::source::branch_short_name("refs/heads/main") == "main");
  CHECK(opctl::source::branch_short_name("refs/remotes/origin/feature/x") == "feature/x");
  CHECK(opctl::source::branch_short_name("v1") == "v1");
}
