#include <catch2/catch.hpp>

#include "kinds/cluster/tls_certificates.hpp"
#include "kinds/kind_time.hpp"

using namespace opctl::kinds::cluster;
using opctl::kinds::parse_time;
using opctl::kinds::TimePoint;

namespace {

TimePoint tls_test_now() {
  return *parse_time("2026-12-05T08:00:00Z");
}

CertificateRequest tls_test_request(std::string common_name, std::vector<std::string> dns_names,
                                    CertificateUsage usage) {
  return {std::move(common_name), std::move(dns_names), usage, tls_test_now() - std::chrono::minutes(5),
          tls_test_now() + std::chrono::hours(24 * 90)};
}

}  // namespace

TEST_CASE("a CA signs a server certificate with the SANs and validity asked for", "[cluster][tls]") {
  // Given a new CA and a server certificate it issues, OpenSSL should read back its names and dates,
  // and the certificate should chain to the CA.
  KeyPair ca = make_certificate_authority(tls_test_request("db CA", {}, CertificateUsage::ca));
  auto ca_info = read_certificate(ca.certificate);
  REQUIRE(ca_info);
  CHECK(ca_info->is_ca);
  CHECK(ca_info->common_name == "db CA");
  CHECK(key_matches(ca.certificate, ca.key));

  KeyPair server =
      issue_certificate(ca, tls_test_request("db-rw", {"db-rw", "db-rw.shop.svc"}, CertificateUsage::server));
  auto info = read_certificate(server.certificate);
  REQUIRE(info);
  CHECK_FALSE(info->is_ca);
  CHECK(info->common_name == "db-rw");
  CHECK(info->dns_names == std::vector<std::string>{"db-rw", "db-rw.shop.svc"});
  CHECK(info->not_after == tls_test_now() + std::chrono::hours(24 * 90));
  CHECK(info->not_before == tls_test_now() - std::chrono::minutes(5));
  CHECK_FALSE(info->serial.empty());
  CHECK(server.key.find("BEGIN PRIVATE KEY") != std::string::npos);
  CHECK(key_matches(server.certificate, server.key));
  CHECK(key_pair_problem(server.certificate, server.key).empty());
  CHECK(verifies_against(server.certificate, ca.certificate, tls_test_now()));
}

TEST_CASE("a certificate does not verify against another CA, before it starts or after it ends",
          "[cluster][tls]") {
  // Given two CAs, a certificate of the first should verify only against it, and only while valid.
  KeyPair ca = make_certificate_authority(tls_test_request("one", {}, CertificateUsage::ca));
  KeyPair other = make_certificate_authority(tls_test_request("two", {}, CertificateUsage::ca));
  KeyPair client = issue_certificate(ca, tls_test_request("app", {}, CertificateUsage::client));
  CHECK(read_certificate(client.certificate)->common_name == "app");
  CHECK(verifies_against(client.certificate, ca.certificate, tls_test_now()));
  CHECK_FALSE(verifies_against(client.certificate, other.certificate, tls_test_now()));
  CHECK(verifies_against(client.certificate, other.certificate + ca.certificate, tls_test_now()));
  CHECK_FALSE(
      verifies_against(client.certificate, ca.certificate, tls_test_now() + std::chrono::hours(24 * 91)));
  CHECK_FALSE(verifies_against(client.certificate, ca.certificate, tls_test_now() - std::chrono::hours(1)));
}

TEST_CASE("two certificates never share a serial, and a key of another certificate is refused",
          "[cluster][tls]") {
  // Given two certificates from one CA, their serials should differ and neither key should fit the other.
  KeyPair ca = make_certificate_authority(tls_test_request("ca", {}, CertificateUsage::ca));
  KeyPair first = issue_certificate(ca, tls_test_request("a", {"a"}, CertificateUsage::server));
  KeyPair second = issue_certificate(ca, tls_test_request("a", {"a"}, CertificateUsage::server));
  CHECK(read_certificate(first.certificate)->serial != read_certificate(second.certificate)->serial);
  CHECK_FALSE(key_matches(first.certificate, second.key));
  CHECK(key_pair_problem(first.certificate, second.key).find("not the key") != std::string::npos);
  CHECK(key_pair_problem("garbage", first.key).find("no PEM certificate") != std::string::npos);
  CHECK(key_pair_problem(first.certificate, "").find("no unencrypted PEM private key") != std::string::npos);
  CHECK_FALSE(read_certificate("not a certificate"));
}
