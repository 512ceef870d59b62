#include <catch2/catch.hpp>

#include "model/ascii_case.hpp"

using opctl::model::ascii_lower;

TEST_CASE("ascii_lower turns A-Z into a-z and keeps every other byte") {
  CHECK(ascii_lower("HTTPS") == "https");
  CHECK(ascii_lower("Git.Example.COM:22") == "git.example.com:22");
  CHECK(ascii_lower("") == "");
  // UTF-8 bytes of "Ä" pass through: host names and kinds are compared as ASCII.
  CHECK(ascii_lower("\xC3\x84X") == "\xC3\x84x");
}
