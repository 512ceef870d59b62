// What opctl reads from ssh-keygen -Y's output (OpenSSH 9.2's wording).
#include <catch2/catch.hpp>

#include "source/ssh_signature.hpp"

using namespace opctl::source;

TEST_CASE("the signing key is read from ssh-keygen's Good line, with or without a principal",
          "[ssh_signature]") {
  CHECK(ssh_key_in(
            "Good \"git\" signature with ED25519 key SHA256:B3f3KE85B7FknjiMi6Jhbu5TJbINgSsX0mdraPxn3bo\n") ==
        "ED25519 SHA256:B3f3KE85B7FknjiMi6Jhbu5TJbINgSsX0mdraPxn3bo");
  CHECK(ssh_key_in("Good \"git\" signature for alice@example.com with RSA key SHA256:abc\n") ==
        "RSA SHA256:abc");
  CHECK(ssh_key_in("Signature verification failed: incorrect signature\nCould not verify signature.\n")
            .empty());
}

TEST_CASE("find-principals output is split into principals, lines and commas alike", "[ssh_signature]") {
  CHECK(principals_in("alice@example.com\n") == std::vector<std::string>{"alice@example.com"});
  CHECK(principals_in("alice@example.com,ops@example.com\nbob\n") ==
        std::vector<std::string>{"alice@example.com", "ops@example.com", "bob"});
  CHECK(principals_in("").empty());
}
