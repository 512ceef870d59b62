// The verdict in gpgv's --status-fd lines, from gpgv 2.2.40's real output for
// a good signature, a key missing from the keyring, a tampered commit, and
// the cases that must never pass (expired or revoked keys, no status at all).
#include <catch2/catch.hpp>

#include "source/openpgp_signature.hpp"

using namespace opctl::source;

namespace {

constexpr const char* k_fingerprint = "31465BE24AA08C2F291E9EC7B79DF651646771A2";

}  // namespace

TEST_CASE("a good signature names the user id and the primary key's fingerprint", "[openpgp_signature]") {
  auto verdict = read_gpgv_status(
      "[GNUPG:] NEWSIG gina@example.com\n"
      "[GNUPG:] KEY_CONSIDERED 31465BE24AA08C2F291E9EC7B79DF651646771A2 0\n"
      "[GNUPG:] SIG_ID KanHsBXH0+huACiijn7XvHU9Dx8 2026-12-02 1796172453\n"
      "[GNUPG:] GOODSIG B79DF651646771A2 Gina <gina@example.com>\n"
      "[GNUPG:] VALIDSIG 31465BE24AA08C2F291E9EC7B79DF651646771A2 2026-12-02 1796172453 0 4 0 22 8 00 "
      "31465BE24AA08C2F291E9EC7B79DF651646771A2\n",
      0, "keyring.gpg");
  CHECK(verdict.good);
  CHECK(verdict.principal == "Gina <gina@example.com>");
  CHECK(verdict.key == k_fingerprint);
}

TEST_CASE("a key missing from the keyring is named with the keyring", "[openpgp_signature]") {
  auto verdict = read_gpgv_status(
      "[GNUPG:] NEWSIG gina@example.com\n"
      "[GNUPG:] ERRSIG B79DF651646771A2 22 8 00 1796172453 9 31465BE24AA08C2F291E9EC7B79DF651646771A2\n"
      "[GNUPG:] NO_PUBKEY B79DF651646771A2\n",
      2, "/etc/opctl/keyring.gpg");
  CHECK_FALSE(verdict.good);
  CHECK(verdict.key == k_fingerprint);
  CHECK(verdict.reason == std::string("is signed by OpenPGP key ") + k_fingerprint +
                              ", which is not in the keyring /etc/opctl/keyring.gpg");
}

TEST_CASE("a bad signature is refused even if gpgv's exit code said otherwise", "[openpgp_signature]") {
  auto verdict = read_gpgv_status(
      "[GNUPG:] NEWSIG gina@example.com\n"
      "[GNUPG:] BADSIG B79DF651646771A2 Gina <gina@example.com>\n",
      0, "keyring.gpg");
  CHECK_FALSE(verdict.good);
  CHECK(verdict.reason ==
        "has a bad OpenPGP signature (OpenPGP key B79DF651646771A2 (Gina <gina@example.com>)): "
        "it does not match the commit");
}

TEST_CASE("expired and revoked keys and expired signatures never pass", "[openpgp_signature]") {
  std::string valid = "[GNUPG:] VALIDSIG " + std::string(k_fingerprint) + " 2026-12-02 1 0 4 0 22 8 00 " +
                      k_fingerprint + "\n";
  auto expired_key = read_gpgv_status("[GNUPG:] EXPKEYSIG B79DF651646771A2 Gina <g@x>\n" + valid, 0, "k");
  CHECK_FALSE(expired_key.good);
  CHECK_THAT(expired_key.reason, Catch::Contains("which has expired"));
  auto revoked = read_gpgv_status("[GNUPG:] REVKEYSIG B79DF651646771A2 Gina <g@x>\n" + valid, 0, "k");
  CHECK_FALSE(revoked.good);
  CHECK_THAT(revoked.reason, Catch::Contains("which is revoked"));
  auto expired_signature = read_gpgv_status("[GNUPG:] EXPSIG B79DF651646771A2 Gina <g@x>\n" + valid, 0, "k");
  CHECK_FALSE(expired_signature.good);
}

TEST_CASE("without GOODSIG and VALIDSIG, or with a failing exit code, nothing passes",
          "[openpgp_signature]") {
  CHECK_FALSE(read_gpgv_status("", 0, "k").good);
  CHECK_FALSE(read_gpgv_status("[GNUPG:] GOODSIG B79DF651646771A2 Gina\n", 0, "k").good);
  auto failed = read_gpgv_status(
      "[GNUPG:] GOODSIG B79DF651646771A2 Gina\n[GNUPG:] VALIDSIG " + std::string(k_fingerprint) + "\n", 1,
      "k");
  CHECK_FALSE(failed.good);
  CHECK_THAT(failed.reason, Catch::Contains("exit code 1"));
}
