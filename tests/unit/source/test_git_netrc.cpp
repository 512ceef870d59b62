// ~/.netrc lookups.
#include <catch2/catch.hpp>

#include "source/git_netrc.hpp"

using opctl::source::find_netrc_entry;

TEST_CASE("the machine entry for the host wins over default", "[git_netrc]") {
  const char* text =
      "# credentials\n"
      "machine other.example.com login o password op\n"
      "machine git.example.com\n  login alice\n  password s3cret\n"
      "default login anon password anonpw\n";
  auto entry = find_netrc_entry(text, "git.example.com");
  REQUIRE(entry);
  CHECK(entry->login == "alice");
  CHECK(entry->password == "s3cret");
  auto fallback = find_netrc_entry(text, "unknown.example.com");
  REQUIRE(fallback);
  CHECK(fallback->login == "anon");
}

TEST_CASE("macdef bodies and accounts are skipped; no entry gives nothing", "[git_netrc]") {
  const char* text =
      "macdef init\nmachine fake login x password y\n\n"
      "machine h account acct login u password p\n";
  auto entry = find_netrc_entry(text, "h");
  REQUIRE(entry);
  CHECK(entry->login == "u");
  CHECK(entry->password == "p");
  CHECK_FALSE(find_netrc_entry(text, "fake"));
  CHECK_FALSE(find_netrc_entry("", "h"));
}
