// known_hosts: which lines name a host, and whether a presented key is trusted.
#include <catch2/catch.hpp>

#include "model/base64.hpp"
#include "source/git_digest.hpp"
#include "source/git_known_hosts.hpp"

using namespace opctl::source;
using opctl::model::base64_decode;

namespace {

const char* k_known_host_ed25519 = "AAAAC3NzaC1lZDI1NTE5AAAAIMRT+ZMhaGFKeDI+UzM4+8i/s7/ZYfYWZzQglNgz7bWz";
const char* k_ecdsa =
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCrn2cnOqbExPllcGRKn4+"
    "hracOEXgAgqfJ3nAIAXWaeuGxoW8GfZukuzbqd"
    "Dd4wLa6dnZNTjTqfTtnLeR44ZiI=";

std::string blob(const char* base64) {
  return *base64_decode(base64);
}

std::string line(const std::string& hosts, const std::string& type, const char* key) {
  return hosts + " " + type + " " + key + "\n";
}

}  // namespace

TEST_CASE("known_hosts lines parse into patterns, type and key", "[known_hosts]") {
  auto entry = parse_known_hosts_line("[127.0.0.1]:2222,git.example.com ssh-ed25519 " +
                                      std::string(k_known_host_ed25519) + " c");
  REQUIRE(entry);
  CHECK(entry->patterns == std::vector<std::string>{"[127.0.0.1]:2222", "git.example.com"});
  CHECK(entry->key_type == "ssh-ed25519");
  CHECK(entry->key == blob(k_known_host_ed25519));
  CHECK(entry->marker == KnownHost::Marker::none);
  CHECK(parse_known_hosts_line("@revoked * ssh-ed25519 " + std::string(k_known_host_ed25519))->marker ==
        KnownHost::Marker::revoked);
}

TEST_CASE("comments, blanks and malformed lines are skipped", "[known_hosts]") {
  CHECK_FALSE(parse_known_hosts_line(""));
  CHECK_FALSE(parse_known_hosts_line("   # a comment"));
  CHECK_FALSE(parse_known_hosts_line("host ssh-ed25519"));
  CHECK_FALSE(parse_known_hosts_line("host ssh-ed25519 not*base64"));
  CHECK_FALSE(parse_known_hosts_line("host ssh-rsa " +
                                     std::string(k_known_host_ed25519)));  // type disagrees with the blob
  CHECK_FALSE(
      parse_known_hosts_line("@unknown-marker host ssh-ed25519 " + std::string(k_known_host_ed25519)));
  CHECK(parse_known_hosts("\n# x\nhost ssh-ed25519 " + std::string(k_known_host_ed25519) + "\nbad line\n")
            .size() == 1);
}

TEST_CASE("hosts are named as OpenSSH names them", "[known_hosts]") {
  // Given port 22 we should use the bare host, otherwise [host]:port.
  CHECK(known_hosts_name("GitHub.com", 22) == "github.com");
  CHECK(known_hosts_name("127.0.0.1", 2222) == "[127.0.0.1]:2222");
  auto entry = *parse_known_hosts_line(
      line("*.example.com,!bad.example.com,[127.0.0.1]:2222", "ssh-ed25519", k_known_host_ed25519));
  CHECK(host_matches(entry, "git.example.com", 22));
  CHECK_FALSE(host_matches(entry, "bad.example.com", 22));  // a negated pattern rejects the line
  CHECK_FALSE(host_matches(entry, "git.example.com", 2222));
  CHECK(host_matches(entry, "127.0.0.1", 2222));
  CHECK_FALSE(host_matches(entry, "127.0.0.1", 22));
}

TEST_CASE("hashed host names match through HMAC-SHA1", "[known_hosts]") {
  // Lines written by `ssh-keygen -H` for [127.0.0.1]:2222 and git.example.com.
  auto entries =
      parse_known_hosts("|1|MDywLrZVa5CCQgwTdar03WteMEI=|D/CyykNELAieylq5v+6BMeqOksw= ssh-ed25519 " +
                        std::string(k_known_host_ed25519) + "\n" +
                        "|1|aSVLkRCuLcNXDgeqCjoUrr1NDGQ=|StIuokLJgwBpxT/w7LI+4RdYa+0= ssh-ed25519 " +
                        std::string(k_known_host_ed25519) + "\n");
  REQUIRE(entries.size() == 2);
  CHECK(host_matches(entries[0], "127.0.0.1", 2222));
  CHECK(host_matches(entries[1], "git.example.com", 22));
  CHECK_FALSE(host_matches(entries[1], "git.example.org", 22));
}

TEST_CASE("host key verdicts", "[known_hosts]") {
  auto entries = parse_known_hosts(line("[127.0.0.1]:2222", "ssh-ed25519", k_known_host_ed25519) +
                                   line("ecdsa.example.com", "ecdsa-sha2-nistp256", k_ecdsa));
  auto check = [&](const char* host, int port, const char* key) {
    std::string raw = blob(key);
    return check_host_key(entries, host, port, key_blob_type(raw), raw).verdict;
  };
  CHECK(check("127.0.0.1", 2222, k_known_host_ed25519) == HostKeyVerdict::trusted);
  CHECK(check("127.0.0.1", 2223, k_known_host_ed25519) == HostKeyVerdict::unknown);
  CHECK(check("ecdsa.example.com", 22, k_known_host_ed25519) == HostKeyVerdict::other_type);
  std::string other_ed25519 = blob(k_known_host_ed25519);
  other_ed25519.back() ^= 1;
  CHECK(check_host_key(entries, "127.0.0.1", 2222, "ssh-ed25519", other_ed25519).verdict ==
        HostKeyVerdict::mismatch);
  auto revoked = parse_known_hosts("@revoked * ssh-ed25519 " + std::string(k_known_host_ed25519) + "\n" +
                                   line("[127.0.0.1]:2222", "ssh-ed25519", k_known_host_ed25519));
  CHECK(check_host_key(revoked, "127.0.0.1", 2222, "ssh-ed25519", blob(k_known_host_ed25519)).verdict ==
        HostKeyVerdict::revoked);
}

TEST_CASE("key blobs name their type and have OpenSSH fingerprints", "[known_hosts]") {
  CHECK(key_blob_type(blob(k_known_host_ed25519)) == "ssh-ed25519");
  CHECK(key_blob_type(blob(k_ecdsa)) == "ecdsa-sha2-nistp256");
  CHECK(key_blob_type("\x00\x00\x00\x09short") == "");
  // As printed by `ssh-keygen -lf`.
  CHECK(key_fingerprint(blob(k_known_host_ed25519)) == "SHA256:dv17kfwNIi4gC79QYa4qJ5Fo5DIoGfTBEXzUXYogx0I");
}

TEST_CASE("digests match their published test vectors", "[known_hosts]") {
  CHECK(to_hex(sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(to_hex(sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(to_hex(sha256(std::string(1000, 'a'))) ==
        "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
  CHECK(to_hex(sha1("abc")) == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(to_hex(hmac_sha1("key", "The quick brown fox jumps over the lazy dog")) ==
        "de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9");
}
