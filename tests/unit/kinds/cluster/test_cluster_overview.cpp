#include <catch2/catch.hpp>

#include "kinds/cluster/cluster_overview.hpp"
#include "kinds/cluster/support_bundle.hpp"
#include "model/base64.hpp"

using opctl::model::Json;
namespace overview_kinds = opctl::kinds::cluster;

namespace {

// A self-signed CA for db-rw (openssl req -x509, EC P-256), valid 2026-12-05T08:35:41Z to
// 2126-11-11T08:35:41Z.
const std::string k_overview_pem =
    "-----BEGIN "
    "CERTIFICATE-----\nMIIBmTCCAT+gAwIBAgIUF+W04BLlk/"
    "M5O68bwn6SIDnkN+"
    "8wCgYIKoZIzj0EAwIw\nEDEOMAwGA1UEAwwFZGItcncwIBcNMjYxMjA1MDgzNTQxWhgPMjEyNjExMTEwODM1\nNDFaMBAxDjAMBgNVBA"
    "MMBWRiLXJ3MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\nFnXC4RZln9jFO8yEcfz9PyT68jjzIDWUh/"
    "eS5A6K0L05bYmLVR9Rnl9fJBYyCPcR\n3V1L+Sk/X+3Hej1clhmk5KN1MHMwHQYDVR0OBBYEFLB/03ShOGgZRxAce7EVYmfF\n/"
    "9TIMB8GA1UdIwQYMBaAFLB/03ShOGgZRxAce7EVYmfF/"
    "9TIMCAGA1UdEQQZMBeC\nBWRiLXJ3gg5kYi1ydy5zaG9wLnN2YzAPBgNVHRMBAf8EBTADAQH/"
    "MAoGCCqGSM49\nBAMCA0gAMEUCIQDzGtb9G+"
    "iNmaUuIEs57Hmel68yczRfMGJI9FdnQAmZlAIgNBX2\ncQ55CSDfphDhYySNIZTrofnAEg7AnmMeDcZnrXw=\n-----END "
    "CERTIFICATE-----\n";

opctl::kinds::TimePoint overview_now() {
  return *opctl::kinds::parse_time("2026-12-05T10:00:00Z");
}

Json overview_pod(const std::string& name, Json annotations, bool ready) {
  annotations["opctl.io/reported-at"] = "2026-12-05T09:59:55Z";
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"annotations", annotations}}},
          {"spec", {{"nodeName", "node-a"}}},
          {"status",
           {{"phase", "Running"},
            {"podIP", "10.0.0.1"},
            {"conditions", Json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})},
            {"containerStatuses", Json::array({{{"name", "postgres"}, {"restartCount", 2}}})}}}};
}

Json overview_pvc(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}}},
          {"status", {{"phase", "Bound"}}}};
}

struct OverviewFixture {
  Json cluster = {{"apiVersion", "opctl.io/v1alpha1"},
                  {"kind", "Cluster"},
                  {"metadata",
                   {{"name", "db"},
                    {"namespace", "shop"},
                    {"annotations", {{"opctl.io/fenced-instances", "[\"db-2\"]"}}}}},
                  {"spec", {{"instances", 2}, {"imageName", "localhost/opctl-postgresql:15"}}},
                  {"status",
                   {{"phase", "Healthy"},
                    {"currentPrimary", "db-1"},
                    {"readyInstances", 2},
                    {"managedRolesStatus",
                     {{"byStatus", {{"reconciled", {"alice"}}, {"cannotReconcile", {"old"}}}},
                      {"cannotReconcile", {{"old", "owns objects"}}}}},
                    {"conditions",
                     Json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "ClusterHealthy"}}})}}}};
  std::vector<Json> children;
  std::vector<Json> backups;

  OverviewFixture() {
    children.push_back(overview_pod(
        "db-1",
        {{"opctl.io/instance-role", "primary"},
         {"opctl.io/current-lsn", "0/5000000"},
         {"opctl.io/timeline", "2"},
         {"opctl.io/replication",
          R"({"slots":[{"name":"_opctl_db_2","active":true,"walStatus":"reserved"}],"standbys":[{"name":"db-2","state":"streaming","syncState":"async"}],"archiver":{"archived":3,"lastArchivedWal":"000000020000000000000004","lastArchivedTime":"2026-12-05T09:59:00Z","failed":0,"lastFailedWal":"","lastFailedTime":""}})"}},
        true));
    children.push_back(overview_pod("db-2",
                                    {{"opctl.io/instance-role", "replica"},
                                     {"opctl.io/received-lsn", "0/4FFF000"},
                                     {"opctl.io/replay-lsn", "0/4FFE000"},
                                     {"opctl.io/streaming", "true"},
                                     {"opctl.io/timeline", "2"}},
                                    true));
    children.push_back(overview_pvc("db-1"));
    children.push_back(overview_pvc("db-2"));
    children.push_back({{"apiVersion", "coordination.k8s.io/v1"},
                        {"kind", "Lease"},
                        {"metadata", {{"name", "db-primary"}, {"annotations", {{"opctl.io/timeline", "2"}}}}},
                        {"spec",
                         {{"holderIdentity", "db-1"},
                          {"renewTime", "2026-12-05T09:59:58.000000Z"},
                          {"leaseDurationSeconds", 15}}}});
    children.push_back({{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", {{"name", "db-server"}}},
                        {"data",
                         {{"tls.crt", opctl::model::base64_encode(k_overview_pem)},
                          {"tls.key", opctl::model::base64_encode("a private key, never shown")}}}});
    children.push_back({{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", {{"name", "db-app"}}},
                        {"data", {{"password", opctl::model::base64_encode("s3cret-app-password")}}}});
    backups.push_back({{"apiVersion", "opctl.io/v1alpha1"},
                       {"kind", "Backup"},
                       {"metadata", {{"name", "nightly"}}},
                       {"spec", {{"cluster", "db"}, {"schedule", "0 3 * * *"}}},
                       {"status", {{"lastSuccessfulTime", "2026-12-05T03:00:40Z"}, {"artifactCount", 4}}}});
    backups.push_back({{"apiVersion", "opctl.io/v1alpha1"},
                       {"kind", "Backup"},
                       {"metadata", {{"name", "other"}}},
                       {"spec", {{"cluster", "not-db"}}}});
  }

  Json overview() const {
    return overview_kinds::cluster_overview({&cluster, children, backups, overview_now()});
  }
};

}  // namespace

TEST_CASE("the overview of a Cluster: instances with lag, the Lease, replication, backups, certificates",
          "[cluster][overview]") {
  OverviewFixture fixture;
  Json overview = fixture.overview();
  CHECK(overview["cluster"]["phase"] == "Healthy");
  CHECK(overview["cluster"]["fencedInstances"] == Json::array({"db-2"}));
  CHECK(overview["cluster"]["hibernation"] == "off");
  CHECK(overview["cluster"]["managedRoles"]["cannotReconcile"]["old"] == "owns objects");
  CHECK_FALSE(overview["cluster"].contains("managedDatabases"));
  CHECK(overview["primaryLease"]["holder"] == "db-1");
  CHECK(overview["primaryLease"]["renewedSecondsAgo"] == 2);
  CHECK(overview["primaryLease"]["expired"] == false);

  REQUIRE(overview["instances"].size() == 2);
  const Json& primary = overview["instances"][0];
  CHECK(primary["role"] == "primary");
  CHECK(primary["currentLSN"] == "0/5000000");
  CHECK_FALSE(primary.contains("lagBytes"));
  CHECK(primary["restarts"] == 2);
  CHECK(primary["reportedSecondsAgo"] == 5);
  const Json& replica = overview["instances"][1];
  CHECK(replica["lagBytes"] == 0x2000);  // 0/5000000 - 0/4FFE000
  CHECK(replica["streaming"] == true);
  CHECK(replica["fenced"] == true);
  CHECK(replica["volume"] == "Bound");

  CHECK(overview["replication"]["slots"][0]["name"] == "_opctl_db_2");
  CHECK(overview["replication"]["archiver"]["archived"] == 3);

  REQUIRE(overview["backups"].size() == 1);
  CHECK(overview["backups"][0]["name"] == "nightly");
  CHECK(overview["backups"][0]["artifactCount"] == 4);

  REQUIRE(overview["certificates"].size() == 1);
  const Json& certificate = overview["certificates"][0];
  CHECK(certificate["secret"] == "db-server");
  CHECK(certificate["commonName"] == "db-rw");
  CHECK(certificate["isCA"] == true);
  CHECK(certificate["dnsNames"] == Json::array({"db-rw", "db-rw.shop.svc"}));
  CHECK(certificate["notAfter"] == "2126-11-11T08:35:41Z");
  CHECK(certificate["expiresInDays"] == 36500 - 1);
  // Nothing of a Secret's value but the certificate's description.
  CHECK(overview.dump().find("s3cret-app-password") == std::string::npos);
  CHECK(overview.dump().find("private key") == std::string::npos);
}

TEST_CASE("the overview of a Cluster without status, Pods or Lease says so instead of failing",
          "[cluster][overview]") {
  OverviewFixture fixture;
  fixture.cluster.erase("status");
  fixture.children = {overview_pvc("db-1")};
  Json overview = fixture.overview();
  CHECK(overview["primaryLease"].is_null());
  CHECK(overview["replication"].is_null());
  REQUIRE(overview["instances"].size() == 1);
  CHECK(overview["instances"][0]["role"] == "stopped");
  CHECK(overview["instances"][0]["pod"] == "none");
}

TEST_CASE("the overview shows a certificate once, under the CA's Secret, and one it cannot read",
          "[cluster][overview]") {
  OverviewFixture fixture;
  for (const char* name : {"db-ca", "db-app-copy"})
    fixture.children.push_back({{"apiVersion", "v1"},
                                {"kind", "Secret"},
                                {"metadata", {{"name", name}}},
                                {"data", {{"ca.crt", opctl::model::base64_encode(k_overview_pem)}}}});
  fixture.children.push_back({{"apiVersion", "v1"},
                              {"kind", "Secret"},
                              {"metadata", {{"name", "db-broken"}}},
                              {"data", {{"tls.crt", opctl::model::base64_encode("hello")}}}});
  Json certificates = fixture.overview()["certificates"];
  REQUIRE(certificates.size() == 2);
  // In name order: db-app-copy's ca.crt first (then named after db-ca, the same certificate), db-broken;
  // db-server's tls.crt is that self-signed certificate again.
  CHECK(certificates[0]["secret"] == "db-ca");
  CHECK(certificates[0]["commonName"] == "db-rw");
  CHECK(certificates[1]["secret"] == "db-broken");
  CHECK(certificates[1]["problem"] == "no PEM certificate in it");
}

TEST_CASE("a support bundle holds no Secret value, in objects, events or logs", "[cluster][report]") {
  OverviewFixture fixture;
  fixture.children.back()["metadata"]["annotations"] = {
      {"kubectl.kubernetes.io/last-applied-configuration", "{\"data\":{\"password\":\"czNjcmV0\"}}"}};
  fixture.children.back()["metadata"]["managedFields"] = Json::array({{{"manager", "opctl"}}});
  overview_kinds::BundleInputs inputs;
  inputs.cluster = &fixture.cluster;
  inputs.children = fixture.children;
  inputs.backups = fixture.backups;
  inputs.events = {
      {{"kind", "Event"},
       {"involvedObject", {{"name", "db-1"}}},
       {"message", "connection with password s3cret-app-password refused"}},
      {{"kind", "Event"}, {"involvedObject", {{"name", "web"}}}, {"message", "about another object"}}};
  inputs.logs = {
      {"db-1.log", "LOG: password s3cret-app-password in postgresql://app:s3cret-app-password@db-rw/app\n"}};
  inputs.now = overview_now();
  auto files = overview_kinds::support_bundle(inputs);

  std::map<std::string, const overview_kinds::BundleFile*> by_path;
  std::string everything;
  for (const auto& file : files) {
    by_path[file.path] = &file;
    everything += file.document.is_null() ? file.text : file.document.dump();
  }
  CHECK(everything.find("s3cret-app-password") == std::string::npos);
  CHECK(everything.find("czNjcmV0") == std::string::npos);
  CHECK(everything.find(opctl::model::base64_encode("s3cret-app-password")) == std::string::npos);
  REQUIRE(by_path.count("objects/Secret/db-app.yaml"));
  CHECK_FALSE(by_path["objects/Secret/db-app.yaml"]->document["metadata"].contains("managedFields"));
  CHECK_FALSE(by_path["objects/Secret/db-app.yaml"]->document["metadata"].contains("annotations"));
  CHECK(by_path["objects/Secret/db-app.yaml"]->document["data"]["password"] == "<redacted: 19 bytes>");
  REQUIRE(by_path.count("events.yaml"));
  REQUIRE(by_path["events.yaml"]->document.size() == 1);
  CHECK(by_path["events.yaml"]->document[0]["message"] == "connection with password *** refused");
  CHECK(by_path.count("backups/nightly.yaml") == 1);
  CHECK(by_path.count("backups/other.yaml") == 0);
  CHECK(by_path.count("README.txt") == 1);
  CHECK(by_path.count("status.json") == 1);
  CHECK(by_path["logs/db-1.log"]->text.find("***") != std::string::npos);
}
