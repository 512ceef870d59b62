#include <catch2/catch.hpp>

#include "validate/value_formats.hpp"

using opctl::model::Json;
using opctl::validate::format_problem;
using opctl::validate::is_quantity;

TEST_CASE("quantities parse the way resource.Quantity does", "[validate][formats]") {
  for (const char* good :
       {"1", "500m", "64Mi", "1.5Gi", "0.5", ".5", "1.", "1e3", "2E-2", "+1k", "-1", "100n"})
    CHECK(is_quantity(good));
  for (const char* bad : {"", "64MB", "1.5.2", "Mi", "1 Gi", "e3", "1e", "ten", "1KiB"})
    CHECK_FALSE(is_quantity(bad));
}

TEST_CASE("formats: int32 range, base64 bytes, RFC 3339 times", "[validate][formats]") {
  CHECK_FALSE(format_problem("int32", Json(2147483647)));
  CHECK(format_problem("int32", Json(2147483648)));
  CHECK(format_problem("int32", Json(-2147483649)));
  CHECK_FALSE(format_problem("int64", Json(9223372036854775807)));
  CHECK(format_problem("int64", Json(18446744073709551615ULL)));
  CHECK_FALSE(format_problem("byte", Json("aGVsbG8=")));
  CHECK(*format_problem("byte", Json("hello!")) == "must be base64-encoded (use stringData for plain text)");
  // What Go's decoder (the API server's) refuses: no padding, a partial group, a space.
  for (const char* refused : {"aGVsbG8", "abc", "aGVs bG8="})
    CHECK(format_problem("byte", Json(refused)));
  CHECK_FALSE(format_problem("byte", Json("aGVs\nbG8=")));  // line breaks are skipped, as Go skips them
  CHECK_FALSE(format_problem("date-time", Json("2024-05-01T12:00:00Z")));
  CHECK_FALSE(format_problem("date-time", Json("2024-05-01T12:00:00.5+02:00")));
  CHECK(format_problem("date-time", Json("yesterday")));
  CHECK_FALSE(format_problem("uuid", Json("anything")));
}
