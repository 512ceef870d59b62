// The one base64 codec reads exactly what Go's encoding/base64 StdEncoding
// reads (the API server's decoder for Secret data and []byte fields): the
// vectors below are Go's own (encoding/base64's pairs and corrupt inputs),
// with RFC 4648's.
#include <catch2/catch.hpp>

#include "model/base64.hpp"

using opctl::model::base64_decode;
using opctl::model::base64_encode;
using opctl::model::base64_url_encode_unpadded;

TEST_CASE("base64 round-trips Go's and RFC 4648's pairs", "[base64]") {
  const std::pair<std::string, std::string> pairs[] = {
      // RFC 3548 / encoding/base64
      {std::string("\x14\xfb\x9c\x03\xd9\x7e", 6), "FPucA9l+"},
      {std::string("\x14\xfb\x9c\x03\xd9", 5), "FPucA9k="},
      {std::string("\x14\xfb\x9c\x03", 4), "FPucAw=="},
      // RFC 4648
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
      // Wikipedia's, as encoding/base64 tests them
      {"sure.", "c3VyZS4="},
      {"sure", "c3VyZQ=="},
      {"sur", "c3Vy"},
      {"su", "c3U="},
      {"leasure.", "bGVhc3VyZS4="},
      {"easure.", "ZWFzdXJlLg=="},
      {"asure.", "YXN1cmUu"},
  };
  for (const auto& [bytes, text] : pairs) {
    CHECK(base64_encode(bytes) == text);
    CHECK(base64_decode(text) == bytes);
  }
}

TEST_CASE("base64 refuses what Go's StdEncoding refuses", "[base64]") {
  // encoding/base64's corrupt inputs, and the values of issue 36.
  for (const char* corrupt : {"!!!!",     "====",        "x===",        "=AAA",   "A=AA",  "AA=A",
                              "AA==A",    "AAA=AAAA",    "AAAAA",       "AAAAAA", "A=",    "A==",
                              "AA=",      "AAAAAA=",     "YWJjZA=====", "A!\n",   "A=\n",  "aGVsbG8",
                              "abc",      "aGVs bG8=",   "aGVs\tbG8=",  " aGk=",  "aGk= ", "a-_b",
                              "AA==AA==", "Zm9vYmE=Zg=="})
    CHECK_FALSE(base64_decode(corrupt).has_value());
}

TEST_CASE("base64 skips line breaks anywhere, as Go does", "[base64]") {
  CHECK(base64_decode("\n") == "");
  CHECK(base64_decode("Zm9v\nYmFy\n") == "foobar");
  CHECK(base64_decode("Zm9v\r\nYmE=\r\n") == "fooba");
  CHECK(base64_decode("Zm9vYg=\n=") == "foob");
  // Not strict: trailing bits that are not zero are accepted, as StdEncoding (not .Strict()) accepts them.
  CHECK(base64_decode("Zh==") == "f");
}

TEST_CASE("the URL alphabet without padding, as ApplySet IDs use it", "[base64]") {
  CHECK(base64_url_encode_unpadded(std::string("\xfb\xff", 2)) == "-_8");
  CHECK(base64_url_encode_unpadded("f") == "Zg");
  CHECK(base64_url_encode_unpadded("foobar") == "Zm9vYmFy");
}
