#include <catch2/catch.hpp>

#include "kinds/cluster/lsn.hpp"

using opctl::kinds::cluster::Lsn;

TEST_CASE("LSNs compare numerically by their two hexadecimal halves, never as text", "[cluster][lsn]") {
  // Given positions where text order and WAL order disagree, we should follow the WAL.
  CHECK(*Lsn::parse("0/A000000") > *Lsn::parse("0/9FFFFFF"));
  CHECK(*Lsn::parse("1/0") > *Lsn::parse("0/FFFFFFFF"));
  CHECK(*Lsn::parse("0/3000060") > *Lsn::parse("0/3000028"));
  CHECK(*Lsn::parse("10/0") > *Lsn::parse("9/FFFFFFFF"));
  CHECK(*Lsn::parse("0/3000060") == *Lsn::parse("0/3000060"));
  CHECK(*Lsn::parse("0/a000000") == *Lsn::parse("0/A000000"));
  CHECK(Lsn::parse("16/B374D848")->value() == ((0x16ULL << 32) | 0xB374D848ULL));
}

TEST_CASE("malformed LSNs are unknown, not zero", "[cluster][lsn]") {
  for (const char* text : {"", "0", "/", "0/", "/1", "0/3000060/1", "G/1", "0/123456789", " 0/1", "0x1/2"})
    CHECK_FALSE(Lsn::parse(text).has_value());
}

TEST_CASE("an LSN prints the way PostgreSQL prints it", "[cluster][lsn]") {
  CHECK(Lsn::parse("0/3000060")->to_string() == "0/3000060");
  CHECK(Lsn::parse("16/b374d848")->to_string() == "16/B374D848");
}
