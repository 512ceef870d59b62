// The git cache: where it lives and what its entries are called.
#include <catch2/catch.hpp>

#include "model/error.hpp"
#include "source/git_cache.hpp"

using opctl::source::cache_entry_name;
using opctl::source::cache_root;
using opctl::source::CacheEnvironment;

TEST_CASE("the cache root follows --cache-dir, then XDG_CACHE_HOME, then HOME", "[git_cache]") {
  CHECK(cache_root("/flag", {"/xdg", "/home/u"}) == "/flag");
  CHECK(cache_root("", {"/xdg", "/home/u"}) == "/xdg/opctl/git");
  CHECK(cache_root("", {"", "/home/u"}) == "/home/u/.cache/opctl/git");
  CHECK(cache_root("", {"relative", "/home/u"}) == "/home/u/.cache/opctl/git");  // XDG: relative is invalid
  CHECK_THROWS_AS(cache_root("", {"", ""}), opctl::InvalidInputError);
}

TEST_CASE("cache entries are named by the repository and a hash of its URL", "[git_cache]") {
  // Given URLs that differ only in host, port or scheme, we should get different, stable, readable names.
  auto name = cache_entry_name("https://github.com/org/manifests.git");
  CHECK(name.starts_with("manifests-"));
  CHECK(name.size() == std::string("manifests-").size() + 32);
  CHECK(name == cache_entry_name("https://github.com/org/manifests.git"));
  CHECK(name != cache_entry_name("https://gitlab.com/org/manifests.git"));
  CHECK(name != cache_entry_name("ssh://git@github.com/org/manifests.git"));
  CHECK(cache_entry_name("git@github.com:org/repo").starts_with("repo-"));
  CHECK(cache_entry_name("/srv/git/").starts_with("git-"));
  CHECK(cache_entry_name("file:///srv/we ird$name.git").starts_with("we_ird_name-"));
  CHECK(cache_entry_name("host:.hidden").starts_with("repo.hidden-"));
}
