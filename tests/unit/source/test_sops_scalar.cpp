#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "source/sops_cipher.hpp"
#include "source/sops_metadata.hpp"
#include "source/sops_scalar.hpp"

using namespace opctl::source::sops;

TEST_CASE("plain scalars hash as Go's yaml.v3 types them", "[sops]") {
  CHECK(mac_bytes_of_plain_scalar("42") == "42");
  CHECK(mac_bytes_of_plain_scalar("010") == "8");  // a leading 0 is octal to strconv.ParseInt
  CHECK(mac_bytes_of_plain_scalar("0x1F") == "31");
  CHECK(mac_bytes_of_plain_scalar("1_000") == "1000");
  CHECK(mac_bytes_of_plain_scalar("1.50") == "1.5");
  CHECK(mac_bytes_of_plain_scalar("1e3") == "1000");
  CHECK(mac_bytes_of_plain_scalar("true") == "True");
  CHECK(mac_bytes_of_plain_scalar("FALSE") == "False");
  CHECK(mac_bytes_of_plain_scalar("yes") == "yes");  // YAML 1.2: a string
  CHECK(mac_bytes_of_plain_scalar("2001-12-14") == "2001-12-14");
  CHECK(mac_bytes_of_plain_scalar(".inf") == "+Inf");
  CHECK_FALSE(mac_bytes_of_plain_scalar("~").has_value());
  CHECK_FALSE(mac_bytes_of_plain_scalar("null").has_value());
}

TEST_CASE("decrypted values are written back as YAML scalars of their type", "[sops]") {
  CHECK(decrypted_scalar("a \"b\"\n", "str")->yaml == "\"a \\\"b\\\"\\n\"");
  CHECK(decrypted_scalar("42", "int")->yaml == "42");
  CHECK(decrypted_scalar("1.5", "float")->yaml == "1.5");
  CHECK(decrypted_scalar("true", "bool")->mac_bytes == "True");
  CHECK(decrypted_scalar("true", "bool")->yaml == "true");
  CHECK_FALSE(decrypted_scalar("x", "int").has_value());
  CHECK_FALSE(decrypted_scalar("\xff", "str").has_value());  // not UTF-8
  CHECK_FALSE(decrypted_scalar("c", "comment").has_value());
}

TEST_CASE("ENC values parse only when whole", "[sops]") {
  auto value = parse_encrypted_value(
      "ENC[AES256_GCM,data:Nok=,iv:lSFlsCUXkStUyg2VUDVsQPUiQ7ZWCdAetHizrsPeaZ4=,"
      "tag:BbLrd7dII6fXi2XTOLxmfw==,type:str]");
  REQUIRE(value.has_value());
  CHECK(value->data.size() == 2);
  CHECK(value->iv.size() == 32);
  CHECK(value->type == "str");
  CHECK_FALSE(parse_encrypted_value("ENC[AES256_GCM,data:Nok=,type:str]").has_value());
  CHECK_FALSE(
      parse_encrypted_value("ENC[AES256_GCM,data:N!k=,iv:AAAA,tag:BbLrd7dII6fXi2XTOLxmfw==,type:str]"));
  CHECK(looks_encrypted("ENC[anything"));
  CHECK_FALSE(looks_encrypted("plain"));
}

TEST_CASE("SOPS rules are RE2 patterns, as SOPS (Go) reads them", "[sops]") {
  std::vector<opctl::Problem> problems;
  auto metadata = read_metadata(YAML::Load("sops:\n  mac: ENC[x]\n  lastmodified: \"2026-12-04T00:00:00Z\"\n "
                                           " encrypted_regex: (?i)^(data|PASSWORD)$\n"),
                                "s.yaml", problems);
  REQUIRE(metadata);
  CHECK(problems.empty());
  CHECK(metadata->should_be_encrypted({"stringData", "password"}));
  CHECK(metadata->should_be_encrypted({"Data"}));
  CHECK_FALSE(metadata->should_be_encrypted({"metadata", "name"}));

  read_metadata(
      YAML::Load(
          "sops:\n  mac: ENC[x]\n  lastmodified: \"2026-12-04T00:00:00Z\"\n  unencrypted_regex: (a)\\1\n"),
      "s.yaml", problems);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].file == "s.yaml");
  CHECK(problems[0].line == 4);
  CHECK(problems[0].field == "sops.unencrypted_regex");
  CHECK_THAT(problems[0].message, Catch::Contains("RE2 syntax, as SOPS reads it"));
}
