#include <catch2/catch.hpp>

#include "model/yaml_scalar.hpp"

using opctl::model::Json;
using opctl::model::resolve_plain_scalar;

TEST_CASE("plain scalars resolve to null, booleans, integers and floats by go-yaml v2's grammar", "[yaml]") {
  // Given the words and number shapes kubectl's reader types, we should type them the same; the matchers
  // replaced std::regex, so each shape on either side of a grammar's edge is here.
  CHECK(resolve_plain_scalar("").is_null());
  CHECK(resolve_plain_scalar("~").is_null());
  CHECK(resolve_plain_scalar("NULL").is_null());
  CHECK(resolve_plain_scalar("On") == true);
  CHECK(resolve_plain_scalar("n") == false);
  CHECK(resolve_plain_scalar("0") == 0);
  CHECK(resolve_plain_scalar("-0") == 0);
  CHECK(resolve_plain_scalar("+12_3") == 123);
  CHECK(resolve_plain_scalar("9223372036854775807") == 9223372036854775807LL);
  CHECK(resolve_plain_scalar("9223372036854775808").is_number_float());
  CHECK(resolve_plain_scalar("0x_fF") == 255);
  CHECK(resolve_plain_scalar("-0xA") == -10);
  CHECK(resolve_plain_scalar("012") == 12.0);
  CHECK(resolve_plain_scalar("012").is_number_float());
  CHECK(resolve_plain_scalar(".5") == 0.5);
  CHECK(resolve_plain_scalar("5.") == 5.0);
  CHECK(resolve_plain_scalar("1_2.3_4") == 12.34);
  CHECK(resolve_plain_scalar("1e-2") == 0.01);
  CHECK(resolve_plain_scalar("-.5E+1") == -5.0);
  CHECK(resolve_plain_scalar("1__e5") == 100000.0);
}

TEST_CASE("plain scalars just outside a number's grammar stay strings", "[yaml]") {
  for (const std::string text : {"+",   "-",   ".",     "._5",   "1e",    "1e+",   "1.5e5x", "0x", "0xg",
                                 "0b1", "0o7", "1:20",  "1.2.3", ".inf",  "-.Inf", ".nan",   "1 ", " 1",
                                 "e5",  "_1",  "1,000", "v1",    "0x1.5", "--1",   "+-1"}) {
    CAPTURE(text);
    CHECK(resolve_plain_scalar(text) == Json(text));
  }
}
