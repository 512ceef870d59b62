// SOPS files made by the real sops (tests/unit/data/sops/README.md), decrypted
// with Debian's age: the values, the MAC rules and every way a file can be refused.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "model/error.hpp"
#include "source/manifest_parser.hpp"
#include "source/sops_file.hpp"

using opctl::InvalidInputError;
using opctl::source::decrypt_sops_files;
using opctl::source::ManifestFile;
using opctl::source::SopsOptions;

namespace {

const std::string k_dir = std::string(OPCTL_TEST_DATA_DIR) + "/sops/";
const std::string k_password =
    "s3cr3t: with \"quotes\" and \xC3\xBCn\xC3\xAF"
    "code";

ManifestFile fixture(const std::string& name) {
  std::ifstream in(k_dir + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  REQUIRE(!text.str().empty());
  return {name, text.str()};
}

SopsOptions key(const std::string& name = "key.txt") {
  SopsOptions options;
  options.files = {k_dir + name};
  return options;
}

// Every problem's text, joined, for the file's decryption.
std::string problems_of(const ManifestFile& file, const SopsOptions& options) {
  try {
    decrypt_sops_files({file}, options);
  } catch (const InvalidInputError& error) {
    std::string text;
    for (const auto& problem : error.problems())
      text += problem.file + ":" + std::to_string(problem.line) + ": " + problem.field + ": " +
              problem.message + "\n";
    return text;
  }
  return "";
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a Secret sops encrypted whole decrypts in place, every line keeping its number", "[sops]") {
  auto files = decrypt_sops_files({fixture("secret.enc.yaml")}, key());
  REQUIRE(files.size() == 1);
  CHECK(files[0].sops_metadata);
  auto objects = opctl::source::parse_manifests(files);
  REQUIRE(objects.size() == 1);
  const auto& secret = objects[0];
  CHECK(secret.kind() == "Secret");
  CHECK(secret.name() == "db-credentials");
  CHECK(secret.namespace_name() == "shop");
  CHECK(secret.body()["stringData"]["password"] == k_password);
  CHECK(secret.body()["stringData"]["multiline"] == "line one\nline two\n");
  CHECK(secret.body()["data"]["token"] == "c2VjcmV0LXRva2Vu");
  CHECK(secret.body()["metadata"]["labels"]["app"] == "shop");
  CHECK_FALSE(secret.body().contains("sops"));
  CHECK(secret.line_of("/stringData/password") == 11);  // as in the encrypted file
}

TEST_CASE("the JSON form decrypts too", "[sops]") {
  auto objects = opctl::source::parse_manifests(decrypt_sops_files({fixture("secret.enc.json")}, key()));
  REQUIRE(objects.size() == 1);
  CHECK(objects[0].body()["stringData"]["password"] == k_password);
  CHECK_FALSE(objects[0].body().contains("sops"));
}

TEST_CASE("typed values decrypt to their types and the MAC covers clear values as SOPS types them",
          "[sops]") {
  for (const char* name : {"typed.all.enc.yaml", "typed.regex.enc.yaml", "typed.maconly.enc.yaml"}) {
    INFO(name);
    auto objects = opctl::source::parse_manifests(decrypt_sops_files({fixture(name)}, key()));
    REQUIRE(objects.size() == 2);
    const auto& values = objects[0].body()["x-values"];
    CHECK(values["int"] == 42);
    CHECK(values["negative"] == -7);
    CHECK(values["float"] == 1.5);
    CHECK(values["bool"] == true);
    CHECK(objects[0].body()["immutable"] == false);
    CHECK(objects[0].body()["stringData"]["plain"] == "hello");
    CHECK(objects[1].body()["data"]["key"] == "dmFsdWU=");
  }
}

TEST_CASE("a changed clear value breaks the MAC", "[sops]") {
  auto file = fixture("typed.regex.enc.yaml");
  file.content = replace_once(file.content, "name: typed", "name: other");
  CHECK_THAT(problems_of(file, key()), Catch::Contains(":39: sops.mac: the MAC does not match"));
}

TEST_CASE("a changed ciphertext, or one moved to another key, does not decrypt", "[sops]") {
  auto file = fixture("secret.enc.yaml");
  auto at = file.content.find("password: ENC[AES256_GCM,data:") + 31;
  file.content[at] = file.content[at] == 'A' ? 'B' : 'A';
  auto changed = problems_of(file, key());
  CHECK_THAT(changed, Catch::Contains("secret.enc.yaml:11: stringData.password: cannot be decrypted"));

  // The additional data binds a value to its path: the username's ciphertext
  // under the password's key is refused.
  auto moved = fixture("secret.enc.yaml");
  auto line_of = [&](const std::string& key) {
    auto start = moved.content.find("    " + key + ": ENC[");
    return moved.content.substr(start, moved.content.find('\n', start) - start);
  };
  std::string username = line_of("username"), password = line_of("password");
  moved.content = replace_once(moved.content, password, "    password: " + username.substr(14));
  CHECK_THAT(problems_of(moved, key()), Catch::Contains("stringData.password: cannot be decrypted"));
}

TEST_CASE("a value that should be encrypted but is in clear is refused", "[sops]") {
  auto file = fixture("secret.enc.yaml");
  auto start = file.content.find("    username: ENC[");
  auto end = file.content.find('\n', start);
  file.content.replace(start, end - start, "    username: admin");
  CHECK_THAT(problems_of(file, key()), Catch::Contains("stringData.username: should be encrypted"));
}

TEST_CASE("a file that is not opened, or not allowed, is an error naming it, and leaks nothing", "[sops]") {
  auto file = fixture("secret.enc.yaml");
  auto wrong_key = problems_of(file, key("other-key.txt"));
  CHECK_THAT(wrong_key, Catch::Contains("secret.enc.yaml:"));
  CHECK_THAT(wrong_key, Catch::Contains("no age identity opens this file's data key"));
  CHECK_THAT(problems_of(file, SopsOptions{}), Catch::Contains("pass --sops-age-key-file"));

  auto configmap = problems_of(fixture("configmap.enc.yaml"), key());
  CHECK_THAT(configmap, Catch::Contains("is a v1 ConfigMap: opctl decrypts Secrets only"));
  CHECK_THAT(configmap, !Catch::Contains("hunter2"));

  auto tampered = fixture("secret.enc.yaml");
  tampered.content = replace_once(tampered.content, "lastmodified: \"2026", "lastmodified: \"2027");
  auto mac = problems_of(tampered, key());
  CHECK_THAT(mac, Catch::Contains("the MAC does not match"));
  CHECK_THAT(mac, !Catch::Contains("s3cr3t"));
}

TEST_CASE("a ciphertext without its sops block would be applied encrypted: refused", "[sops]") {
  auto file = fixture("secret.enc.yaml");
  file.content = file.content.substr(0, file.content.find("sops:"));
  CHECK_THAT(problems_of(file, key()),
             Catch::Contains("holds a SOPS ciphertext (ENC[...]) but the file has no sops block"));
}

TEST_CASE("kustomize output with a SOPS document is refused", "[sops]") {
  auto file = fixture("secret.enc.yaml");
  file.rendered = true;
  CHECK_THAT(problems_of(file, key()), Catch::Contains("not what kustomize renders"));
}

TEST_CASE("files without SOPS pass through untouched, with no age run", "[sops]") {
  ManifestFile plain{"a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"};
  auto files = decrypt_sops_files({plain}, SopsOptions{});
  REQUIRE(files.size() == 1);
  CHECK(files[0].content == plain.content);
  CHECK_FALSE(files[0].sops_metadata);
}
