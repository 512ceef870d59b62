#include <catch2/catch.hpp>

#include "kinds/backup/backup_reconciler.hpp"
#include "kinds/backup/backup_spec.hpp"
#include "kinds/object_store.hpp"
#include "kinds_fixtures.hpp"

using opctl::model::Json;
using namespace opctl::kinds;

namespace {

const std::string k_store_header =
    "apiVersion: opctl.io/v1alpha1\nkind: Backup\nmetadata:\n  name: offsite\n  namespace: shop\nspec:\n"
    "  cluster: db\n";

const std::string k_store =
    "  target:\n"                                     // 8
    "    objectStore:\n"                              // 9
    "      destinationPath: s3://backups/shop\n"      // 10
    "      endpointURL: https://10.213.0.1:9443\n"    // 11
    "      region: eu-central-1\n"                    // 12
    "      endpointCA: {name: s3-ca, key: ca.crt}\n"  // 13
    "      s3Credentials:\n"                          // 14
    "        accessKeyId: {name: s3-keys, key: ACCESS_KEY_ID}\n"
    "        secretAccessKey: {name: s3-keys, key: ACCESS_SECRET_KEY}\n"
    "      data: {compression: gzip, encryption: AES256}\n"
    "      wal: {compression: snappy}\n";

std::vector<std::string> store_problems(const std::string& yaml) {
  std::vector<std::string> lines;
  for (const auto& problem : backup::BackupReconciler().validate(test::object_from_yaml(yaml)))
    lines.push_back(problem.to_string());
  return lines;
}

}  // namespace

TEST_CASE("an object-store target is read whole, and its keys stay references to the Secret",
          "[kinds][object-store]") {
  Json spec = test::json_from_yaml(k_store_header + k_store)["spec"];
  REQUIRE(backup::check_spec(spec).empty());
  auto store = backup::read_spec(spec).target.object_store;
  REQUIRE(store);
  CHECK(store->destination_path == "s3://backups/shop");
  CHECK(bucket_of(store->destination_path) == "backups");
  CHECK(store->endpoint_url == "https://10.213.0.1:9443");
  CHECK(store->region == "eu-central-1");
  CHECK(store->endpoint_ca == SecretKeyRef{"s3-ca", "ca.crt"});
  CHECK(store->access_key_id == SecretKeyRef{"s3-keys", "ACCESS_KEY_ID"});
  CHECK(store->secret_access_key == SecretKeyRef{"s3-keys", "ACCESS_SECRET_KEY"});

  Json env = object_store_env(*store);
  CHECK(env[0] == Json::parse(R"({"name":"AWS_ACCESS_KEY_ID",
      "valueFrom":{"secretKeyRef":{"name":"s3-keys","key":"ACCESS_KEY_ID","optional":true}}})"));
  CHECK(env[1]["valueFrom"]["secretKeyRef"]["key"] == "ACCESS_SECRET_KEY");
  CHECK(env[2] == Json::parse(R"({"name":"AWS_DEFAULT_REGION","value":"eu-central-1"})"));
  CHECK(env[3] == Json::parse(R"({"name":"AWS_CA_BUNDLE","value":"/etc/opctl/object-store-ca/ca.crt"})"));
  CHECK(env.size() == 4);
  CHECK(*object_store_ca_volume(*store) == Json::parse(R"({"name":"object-store-ca",
      "secret":{"secretName":"s3-ca","items":[{"key":"ca.crt","path":"ca.crt"}]}})"));
  CHECK((*object_store_ca_mount(*store))["mountPath"] == "/etc/opctl/object-store-ca");

  using Options = std::vector<std::string>;
  CHECK(barman_cloud_options(*store, StoreUse::data) == Options{"--cloud-provider", "aws-s3",
                                                                "--endpoint-url", "https://10.213.0.1:9443",
                                                                "--gzip", "--encryption", "AES256"});
  CHECK(barman_cloud_options(*store, StoreUse::wal) ==
        Options{"--cloud-provider", "aws-s3", "--endpoint-url", "https://10.213.0.1:9443", "--snappy"});
  CHECK(barman_cloud_options(*store, StoreUse::read) ==
        Options{"--cloud-provider", "aws-s3", "--endpoint-url", "https://10.213.0.1:9443"});
  CHECK(wal_archive_argv(*store, "db") == Options{"barman-cloud-wal-archive", "--cloud-provider", "aws-s3",
                                                  "--endpoint-url", "https://10.213.0.1:9443", "--snappy",
                                                  "s3://backups/shop", "db"});
  CHECK(store_backup_argv(*store, "db").front() == "barman-cloud-backup");
  CHECK(backup_list_argv(*store, "db") == Options{"barman-cloud-backup-list", "--cloud-provider", "aws-s3",
                                                  "--endpoint-url", "https://10.213.0.1:9443", "--format",
                                                  "json", "s3://backups/shop", "db"});
  // PostgreSQL runs restore_command through the shell after expanding %f and %p.
  CHECK(wal_restore_command(*store, "db") ==
        "'barman-cloud-wal-restore' '--cloud-provider' 'aws-s3' '--endpoint-url' 'https://10.213.0.1:9443' "
        "'s3://backups/shop' 'db' %f %p");
}

TEST_CASE("a volume target has no object store, and a store without a CA or region adds neither",
          "[kinds][object-store]") {
  CHECK_FALSE(read_object_store(test::json_from_yaml(k_store_header + "  target:\n    pvc: b\n")["spec"]));
  auto store = read_object_store(test::json_from_yaml(
      k_store_header +
      "  target:\n    objectStore:\n      destinationPath: s3://b\n      s3Credentials:\n"
      "        accessKeyId: {name: k, key: id}\n        secretAccessKey: {name: k, key: secret}\n")["spec"]);
  REQUIRE(store);
  CHECK(object_store_env(*store).size() == 2);
  CHECK_FALSE(object_store_ca_volume(*store));
  CHECK(barman_cloud_options(*store, StoreUse::data) ==
        std::vector<std::string>{"--cloud-provider", "aws-s3"});
  CHECK(bucket_of("s3://b") == "b");
  CHECK(bucket_of("https://b/x").empty());
}

TEST_CASE("bad object-store fields are reported at their lines, and pg_dump cannot target a store",
          "[kinds][object-store]") {
  auto problems = store_problems(k_store_header +
                                 "  method: pg_dump\n"                            // 8
                                 "  target:\n"                                    // 9
                                 "    objectStore:\n"                             // 10
                                 "      destinationPath: https://backups/shop\n"  // 11
                                 "      endpointURL: 10.213.0.1:9000\n"           // 12
                                 "      data: {compression: zstd}\n"              // 13
                                 "      endpointCA: {name: Bad_Name}\n");         // 14
  auto has = [&](const std::string& text) {
    return std::any_of(problems.begin(), problems.end(),
                       [&](const auto& line) { return line.find(text) == 0; });
  };
  CHECK(has("backup.yaml:8: spec.method: pg_dump cannot write to an object store"));
  CHECK(
      has("backup.yaml:11: spec.target.objectStore.destinationPath: \"https://backups/shop\" is not "
          "s3://<bucket>[/<path>]"));
  CHECK(
      has("backup.yaml:12: spec.target.objectStore.endpointURL: \"10.213.0.1:9000\" is not an http:// or "
          "https:// URL"));
  CHECK(
      has("backup.yaml:13: spec.target.objectStore.data.compression: \"zstd\" is not one of gzip, bzip2, "
          "snappy"));
  CHECK(has("backup.yaml:14: spec.target.objectStore.endpointCA.name: \"Bad_Name\" is not a Secret name"));
  CHECK(has("backup.yaml:14: spec.target.objectStore.endpointCA.key: missing required field"));
  CHECK(has("backup.yaml:10: spec.target.objectStore.s3Credentials: missing required field"));
  CHECK(problems.size() == 7);
}

TEST_CASE("the CRD allows exactly one of the three targets", "[kinds][object-store]") {
  Json crd = backup::BackupReconciler().custom_resource_definition();
  const Json& target =
      crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["target"];
  CHECK(target["properties"]["objectStore"]["required"] == Json::array({"destinationPath", "s3Credentials"}));
  CHECK(target["properties"]["objectStore"]["properties"]["wal"]["properties"]["compression"]["enum"] ==
        Json::array({"gzip", "bzip2", "snappy"}));
  CHECK(target["x-kubernetes-validations"][0]["rule"] ==
        "(has(self.pvc) ? 1 : 0) + (has(self.volume) ? 1 : 0) + (has(self.objectStore) ? 1 : 0) == 1");
}
