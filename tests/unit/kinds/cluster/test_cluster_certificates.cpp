#include <catch2/catch.hpp>

#include "cluster_world.hpp"
#include "kinds/cluster/cluster_certificates.hpp"
#include "kinds/cluster/tls_certificates.hpp"
#include "model/base64.hpp"

using cluster_test::three_instances;
using cluster_test::World;
using namespace opctl::kinds::cluster;
using opctl::model::Json;

namespace {

std::string tls_secret_key(World& world, const std::string& secret, const char* key) {
  return opctl::model::base64_decode(world.child("Secret", secret)["data"].value(key, "")).value_or("");
}

CertificateInfo served_certificate(World& world) {
  auto info = read_certificate(tls_secret_key(world, "db-server", "tls.crt"));
  REQUIRE(info);
  return *info;
}

int tls_events(const World& world, const std::string& reason) {
  int count = 0;
  for (const auto& event : world.last.events)
    if (event.reason == reason) ++count;
  return count;
}

std::vector<std::string> tls_issue_fields(const Json& spec) {
  std::vector<std::string> out;
  for (const auto& issue : check_cluster(cluster_test::cluster_resource("db", spec)))
    out.push_back(issue.field);
  return out;
}

}  // namespace

TEST_CASE("a new Cluster gets a CA and a server certificate for its Services' names", "[cluster][tls]") {
  // Given a new Cluster, the first pass should create <cluster>-ca and <cluster>-server, the server
  // certificate signed by the CA for every name of -rw, -ro and -r, valid 90 days.
  World world(three_instances());
  world.pass();
  Json& ca = world.child("Secret", "db-ca");
  Json& server = world.child("Secret", "db-server");
  CHECK(ca["type"] == "Opaque");
  CHECK(server["type"] == "kubernetes.io/tls");
  std::string ca_pem = tls_secret_key(world, "db-ca", "ca.crt");
  CHECK(read_certificate(ca_pem)->is_ca);
  CHECK(tls_secret_key(world, "db-server", "ca.crt") == ca_pem);
  CertificateInfo info = served_certificate(world);
  CHECK(info.dns_names.size() == 12);
  for (const char* name : {"db-rw", "db-rw.shop", "db-rw.shop.svc", "db-rw.shop.svc.cluster.local", "db-ro",
                           "db-r.shop.svc.cluster.local"})
    CHECK(std::find(info.dns_names.begin(), info.dns_names.end(), name) != info.dns_names.end());
  CHECK(info.not_after == world.clock.wall_now() + k_server_certificate_validity);
  CHECK(verifies_against(tls_secret_key(world, "db-server", "tls.crt"), ca_pem, world.clock.wall_now()));
  CHECK(key_matches(tls_secret_key(world, "db-server", "tls.crt"),
                    tls_secret_key(world, "db-server", "tls.key")));
  CHECK(tls_events(world, "CertificateAuthorityCreated") == 1);
  CHECK(tls_events(world, "CertificateIssued") == 1);

  // The instances may read the server Secret, never the CA's key.
  const Json& rules = world.child("Role", "db-1")["rules"];
  bool reads_server = false;
  for (const auto& rule : rules)
    if (rule["resources"] == Json::array({"secrets"})) {
      reads_server = std::find(rule["resourceNames"].begin(), rule["resourceNames"].end(), "db-server") !=
                     rule["resourceNames"].end();
      CHECK(std::find(rule["resourceNames"].begin(), rule["resourceNames"].end(), "db-ca") ==
            rule["resourceNames"].end());
    }
  CHECK(reads_server);
}

TEST_CASE("the server certificate is kept until 7 days before it expires, then issued again",
          "[cluster][tls]") {
  // Given a Cluster whose certificate was issued, later passes should keep it, until its renewal window.
  World world(three_instances());
  world.pass();
  std::string serial = served_certificate(world).serial;
  std::string ca = tls_secret_key(world, "db-ca", "ca.crt");
  world.clock.advance(std::chrono::hours(24 * 82));
  world.pass();
  CHECK(served_certificate(world).serial == serial);
  CHECK(tls_events(world, "CertificateIssued") == 0);

  world.clock.advance(std::chrono::hours(24 * 2));  // 84 days: within the 7 days before expiry
  world.pass();
  CHECK(served_certificate(world).serial != serial);
  CHECK(served_certificate(world).not_after == world.clock.wall_now() + k_server_certificate_validity);
  CHECK(tls_secret_key(world, "db-ca", "ca.crt") == ca);  // the CA stays
  CHECK(tls_events(world, "CertificateIssued") == 1);
  CHECK(world.last.events.back().message.find("expires on") != std::string::npos);
}

TEST_CASE("opctl.io/renew-certificates re-issues the certificates once per value", "[cluster][tls]") {
  // Given a valid certificate, a new annotation value should re-issue it at the next pass only.
  World world(three_instances());
  world.pass();
  std::string serial = served_certificate(world).serial;
  world.parent["metadata"]["annotations"]["opctl.io/renew-certificates"] = "2026-12-05";
  world.pass();
  std::string renewed = served_certificate(world).serial;
  CHECK(renewed != serial);
  CHECK(world.child("Secret", "db-server")["metadata"]["annotations"]["opctl.io/renewed-for"] ==
        "2026-12-05");
  world.pass();
  CHECK(served_certificate(world).serial == renewed);
  CHECK(tls_events(world, "CertificateIssued") == 0);
}

int certificates_in(const std::string& pem) {
  int count = 0;
  for (auto at = pem.find("BEGIN CERTIFICATE"); at != std::string::npos;
       at = pem.find("BEGIN CERTIFICATE", at + 1))
    ++count;
  return count;
}

TEST_CASE(
    "the CA is rotated in two steps: its successor trusted a year ahead, signing 97 days before the end",
    "[cluster][tls]") {
  // Given a Cluster whose CA was made at t0 (valid 10 years), a pass within the year before it expires
  // should announce a successor (trusted in every ca.crt, not signing); a pass within 97 days of the end
  // should sign with the successor, issue the certificates again from it and keep the old CA trusted
  // until it expires; after that only the new CA is trusted.
  World world(three_instances());
  world.pass();
  std::string first = tls_secret_key(world, "db-ca", "ca.crt");
  world.clock.advance(k_ca_validity - std::chrono::hours(24 * 300));
  world.pass();
  CHECK(tls_events(world, "CertificateAuthorityAnnounced") == 1);
  std::string next = tls_secret_key(world, "db-ca", "next-ca.crt");
  REQUIRE(read_certificate(next));
  CHECK(read_certificate(next)->is_ca);
  CHECK(tls_secret_key(world, "db-ca", "ca.crt") == first);  // the old CA still signs
  std::string bundle = tls_secret_key(world, "db-server", "ca.crt");
  CHECK(certificates_in(bundle) == 2);
  CHECK(bundle.find(next) != std::string::npos);
  CHECK(tls_secret_key(world, "db-app", "ca.crt") == bundle);
  CHECK(verifies_against(tls_secret_key(world, "db-server", "tls.crt"), first, world.clock.wall_now()));
  world.pass();  // nothing more until the switch
  CHECK(tls_events(world, "CertificateAuthorityAnnounced") == 0);
  CHECK(tls_secret_key(world, "db-ca", "next-ca.crt") == next);

  world.clock.advance(std::chrono::hours(24 * 210));  // 90 days left
  world.pass();
  CHECK(tls_events(world, "CertificateAuthorityRotated") == 1);
  CHECK(tls_secret_key(world, "db-ca", "ca.crt") == next);
  CHECK(tls_secret_key(world, "db-ca", "previous-ca.crt") == first);
  CHECK(tls_secret_key(world, "db-ca", "next-ca.crt").empty());
  CHECK(verifies_against(tls_secret_key(world, "db-server", "tls.crt"), next, world.clock.wall_now()));
  CHECK(certificates_in(tls_secret_key(world, "db-server", "ca.crt")) == 2);
  CHECK(world.last.events.back().message.find("the CA changed") != std::string::npos);

  world.clock.advance(std::chrono::hours(24 * 91));  // the old CA has expired
  world.pass();
  CHECK(tls_secret_key(world, "db-ca", "previous-ca.crt").empty());
  CHECK(tls_secret_key(world, "db-server", "ca.crt") == next);
}

TEST_CASE("a CA found with less than 97 days left gets its successor and switches in one pass",
          "[cluster][tls]") {
  World world(three_instances());
  world.pass();
  std::string first = tls_secret_key(world, "db-ca", "ca.crt");
  world.clock.advance(k_ca_validity - std::chrono::hours(24 * 50));
  world.pass();
  CHECK(tls_events(world, "CertificateAuthorityAnnounced") == 0);
  CHECK(tls_events(world, "CertificateAuthorityRotated") == 1);
  std::string signing = tls_secret_key(world, "db-ca", "ca.crt");
  CHECK(signing != first);
  CHECK(tls_secret_key(world, "db-ca", "previous-ca.crt") == first);
  CHECK(verifies_against(tls_secret_key(world, "db-server", "tls.crt"), signing, world.clock.wall_now()));
  CHECK(read_certificate(signing)->not_after == world.clock.wall_now() + k_ca_validity);
}

TEST_CASE("changed DNS names, a lost CA or a broken Secret re-issue the certificate", "[cluster][tls]") {
  World world(three_instances());
  world.pass();
  std::string serial = served_certificate(world).serial;

  SECTION("serverAltDNSNames adds a name") {
    world.parent["spec"]["certificates"] = {{"serverAltDNSNames", Json::array({"db.example.com"})}};
    world.pass();
    auto names = served_certificate(world).dns_names;
    CHECK(std::find(names.begin(), names.end(), "db.example.com") != names.end());
  }
  SECTION("the CA Secret was deleted: a new CA, and a certificate it signed") {
    world.remove("Secret", "db-ca");
    world.pass();
    CHECK(verifies_against(tls_secret_key(world, "db-server", "tls.crt"),
                           tls_secret_key(world, "db-ca", "ca.crt"), world.clock.wall_now()));
    CHECK(tls_secret_key(world, "db-app", "ca.crt") == tls_secret_key(world, "db-ca", "ca.crt"));
  }
  SECTION("the key in the Secret is not the certificate's") {
    world.child("Secret", "db-server")["data"]["tls.key"] = opctl::model::base64_encode("nonsense");
    world.pass();
  }
  CHECK(served_certificate(world).serial != serial);
}

TEST_CASE("client certificates are issued for the users named, with the user as common name",
          "[cluster][tls]") {
  Json spec = three_instances();
  spec["certificates"] = {{"clientCertificates", Json::array({"app", "report_reader"})}};
  World world(spec);
  world.pass();
  CHECK(world.has("Secret", "db-client-app"));
  REQUIRE(world.has("Secret", "db-client-report-reader"));
  auto info = read_certificate(tls_secret_key(world, "db-client-report-reader", "tls.crt"));
  REQUIRE(info);
  CHECK(info->common_name == "report_reader");
  CHECK(info->dns_names.empty());
  CHECK(verifies_against(tls_secret_key(world, "db-client-report-reader", "tls.crt"),
                         tls_secret_key(world, "db-ca", "ca.crt"), world.clock.wall_now()));
}

TEST_CASE("a user-given server certificate is checked and served, and none is issued", "[cluster][tls]") {
  // Given serverTLSSecret and serverCASecret, the pass should issue nothing, publish the user's CA in
  // the -app Secret, and report a missing or unusable Secret as Degraded.
  CertificateRequest ca_request{"mine",
                                {},
                                CertificateUsage::ca,
                                *opctl::kinds::parse_time("2026-11-01T00:00:00Z"),
                                *opctl::kinds::parse_time("2027-11-01T00:00:00Z")};
  KeyPair ca = make_certificate_authority(ca_request);
  CertificateRequest server_request = ca_request;
  server_request.usage = CertificateUsage::server;
  server_request.dns_names = {"db-rw"};
  KeyPair server = issue_certificate(ca, server_request);
  Json spec = three_instances();
  spec["certificates"] = {{"serverTLSSecret", "my-tls"}, {"serverCASecret", "my-ca"}};
  World world(spec);
  auto secret = [](const char* name, Json data) {
    for (auto& [key, value] : data.items())
      value = opctl::model::base64_encode(value.get<std::string>());
    return Json{{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}}}, {"data", data}};
  };
  world.pass();
  CHECK(world.condition("Degraded"));
  CHECK(world.reason("Degraded") == "TLSSecretNotFound");

  world.related = {secret("my-tls", {{"tls.crt", server.certificate}, {"tls.key", server.key}}),
                   secret("my-ca", {{"ca.crt", ca.certificate}})};
  world.pass();
  CHECK_FALSE(world.has("Secret", "db-server"));
  CHECK_FALSE(world.has("Secret", "db-ca"));
  CHECK(tls_secret_key(world, "db-app", "ca.crt") == ca.certificate);
  CHECK(world.reason("Degraded") != "TLSSecretNotFound");
  const Json& rules = world.child("Role", "db-1")["rules"];
  for (const auto& rule : rules)
    if (rule["resources"] == Json::array({"secrets"}))
      CHECK(rule["resourceNames"] ==
            Json::array({"db-app", "db-superuser", "db-replication", "my-tls", "my-ca"}));

  world.related[0] = secret("my-tls", {{"tls.crt", server.certificate}, {"tls.key", ca.key}});
  world.pass();
  CHECK(world.reason("Degraded") == "TLSSecretUnusable");
  CHECK(world.message("Degraded").find("not the key") != std::string::npos);
  CHECK(world.message("Degraded").find("BEGIN") == std::string::npos);  // never the key
}

TEST_CASE("spec.certificates combinations that cannot work are refused at their line", "[cluster][tls]") {
  Json spec = three_instances();
  spec["certificates"] = {{"serverTLSSecret", "my-tls"}};
  CHECK(tls_issue_fields(spec) == std::vector<std::string>{"spec.certificates.serverTLSSecret"});
  spec["certificates"] = {{"serverCASecret", "my-ca"}};
  CHECK(tls_issue_fields(spec) == std::vector<std::string>{"spec.certificates.serverCASecret"});
  spec["certificates"] = {{"serverTLSSecret", "my-tls"},
                          {"serverCASecret", "my-ca"},
                          {"clientCertificates", Json::array({"app"})},
                          {"serverAltDNSNames", Json::array({"db.example.com"})}};
  CHECK(tls_issue_fields(spec) == std::vector<std::string>{"spec.certificates.clientCertificates",
                                                           "spec.certificates.serverAltDNSNames"});
  spec["certificates"] = {{"serverAltDNSNames", Json::array({"Not A Name"})},
                          {"clientCertificates", Json::array({"App-User"})}};
  CHECK(tls_issue_fields(spec).size() == 2);
  spec["postgresql"] = {{"parameters", {{"ssl_cert_file", "/tmp/x"}}}};
  spec.erase("certificates");
  CHECK(tls_issue_fields(spec) == std::vector<std::string>{"spec.postgresql.parameters.ssl_cert_file"});
}

TEST_CASE("requireSSL changes the configuration hash only when set", "[cluster][tls]") {
  // Given Clusters from before requireSSL, their hash should stay what it was (nothing to reload).
  Json spec = three_instances();
  spec["postgresql"] = {{"parameters", {{"work_mem", "8MB"}}}};
  std::string before = configuration_hash(postgres_configuration(spec));
  spec["postgresql"]["requireSSL"] = false;
  CHECK(configuration_hash(postgres_configuration(spec)) == before);
  spec["postgresql"]["requireSSL"] = true;
  CHECK(postgres_configuration(spec).require_ssl);
  CHECK(configuration_hash(postgres_configuration(spec)) != before);
}
