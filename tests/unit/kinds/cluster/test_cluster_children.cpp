#include <catch2/catch.hpp>
#include <map>

#include "cluster_world.hpp"
#include "model/base64.hpp"

using cluster_test::Json;
using cluster_test::three_instances;
using cluster_test::World;

namespace {

std::string decoded(const Json& secret, const std::string& key) {
  return opctl::model::base64_decode(secret["data"].value(key, "")).value_or("<not base64>");
}

}  // namespace

TEST_CASE("the first pass creates instance 1 as the primary, the Services, the Secrets and the RBAC",
          "[cluster][children]") {
  // Given a new 3-instance Cluster, we should bootstrap instance 1 alone; the replicas join later.
  World world(three_instances());
  auto result = world.pass();
  CHECK(world.names("Pod") == std::vector<std::string>{"db-1"});
  CHECK(world.names("PersistentVolumeClaim") == std::vector<std::string>{"db-1"});
  CHECK(world.names("Service") == std::vector<std::string>{"db-r", "db-ro", "db-rw"});
  CHECK(world.names("Secret") ==
        std::vector<std::string>{"db-app", "db-ca", "db-replication", "db-server", "db-superuser"});
  // One identity per instance: each may patch its own Pod only.
  CHECK(world.names("ServiceAccount") == std::vector<std::string>{"db-1"});
  CHECK(world.names("Role") == std::vector<std::string>{"db-1"});
  CHECK(world.names("RoleBinding") == std::vector<std::string>{"db-1"});
  CHECK(world.names("Lease") == std::vector<std::string>{"db-primary"});
  const Json& rules = world.child("Role", "db-1")["rules"];
  bool patches_only_itself = false;
  for (const auto& rule : rules) {
    bool patch = std::find(rule["verbs"].begin(), rule["verbs"].end(), "patch") != rule["verbs"].end();
    if (patch)
      patches_only_itself =
          rule["resources"] == Json::array({"pods"}) && rule["resourceNames"] == Json::array({"db-1"});
    if (rule["resources"] == Json::array({"leases"}))
      CHECK(rule["resourceNames"] == Json::array({"db-primary"}));
  }
  CHECK(patches_only_itself);

  Json& pod = world.pod("db-1");
  CHECK(pod["metadata"]["labels"] ==
        Json{{"opctl.io/cluster", "db"}, {"opctl.io/instance", "db-1"}, {"opctl.io/role", "primary"}});
  CHECK(pod["metadata"]["namespace"] == "shop");
  CHECK(world.image("db-1") == "ghcr.io/cloudnative-pg/postgresql:16.4");
  CHECK(pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == "db-1");
  CHECK(pod["spec"]["serviceAccountName"] == "db-1");
  CHECK_FALSE(pod["metadata"]["annotations"].value("opctl.io/pod-spec-hash", "").empty());
  Json& pvc = world.child("PersistentVolumeClaim", "db-1");
  CHECK(pvc["metadata"]["labels"] == Json{{"opctl.io/cluster", "db"}, {"opctl.io/instance", "db-1"}});
  CHECK(pvc["spec"]["resources"]["requests"]["storage"] == "1Gi");

  // The runner adds ownerReferences and the owner-uid label, not the reconciler.
  for (const auto& child : result.children) {
    CHECK_FALSE(child["metadata"].contains("ownerReferences"));
    CHECK(child.contains("apiVersion"));
  }
  CHECK(world.status("targetPrimary") == "db-1");
  CHECK(world.parent["status"]["latestGeneratedNode"] == 1);
  CHECK(world.phase() == "SettingUpPrimary");
  CHECK(result.finalizers == std::vector<std::string>{"opctl.io/final-backup"});
  CHECK(result.requeue_after.has_value());
  CHECK_FALSE(result.keep_unlisted);
}

TEST_CASE("the Services select the primary, the replicas and every instance by label",
          "[cluster][children]") {
  World world(three_instances());
  world.pass();
  CHECK(world.child("Service", "db-rw")["spec"]["selector"] ==
        Json{{"opctl.io/cluster", "db"}, {"opctl.io/role", "primary"}});
  CHECK(world.child("Service", "db-ro")["spec"]["selector"] ==
        Json{{"opctl.io/cluster", "db"}, {"opctl.io/role", "replica"}});
  CHECK(world.child("Service", "db-r")["spec"]["selector"] == Json{{"opctl.io/cluster", "db"}});
  CHECK(world.child("Service", "db-rw")["spec"]["ports"][0]["port"] == 5432);
}

TEST_CASE("the Secrets carry the keys applications expect, with the -rw Service's DNS name",
          "[cluster][secrets]") {
  World world(three_instances());
  world.pass();
  Json& app = world.child("Secret", "db-app");
  CHECK(app["type"] == "kubernetes.io/basic-auth");
  std::string password = decoded(app, "password");
  CHECK(password.size() == 64);
  CHECK(decoded(app, "username") == "app");
  CHECK(decoded(app, "user") == "app");
  CHECK(decoded(app, "host") == "db-rw.shop.svc");
  CHECK(decoded(app, "port") == "5432");
  CHECK(decoded(app, "dbname") == "app");
  CHECK(decoded(app, "uri") ==
        "postgresql://app:" + password + "@db-rw.shop.svc:5432/app?sslmode=verify-full");
  CHECK(decoded(app, "jdbc-uri") ==
        "jdbc:postgresql://db-rw.shop.svc:5432/app?password=" + password + "&user=app&sslmode=verify-full");
  CHECK(decoded(app, "ca.crt") == decoded(world.child("Secret", "db-ca"), "ca.crt"));
  CHECK(decoded(app, "pgpass") == "db-rw.shop.svc:5432:app:app:" + password + "\n");
  CHECK_FALSE(app.contains("stringData"));

  Json& superuser = world.child("Secret", "db-superuser");
  CHECK(superuser["type"] == "kubernetes.io/basic-auth");
  CHECK(decoded(superuser, "username") == "postgres");
  CHECK(decoded(superuser, "dbname") == "*");
  CHECK(decoded(superuser, "password") != password);
}

TEST_CASE("passwords are generated once and never overwritten", "[cluster][secrets]") {
  // Given Secrets that exist, we should return them unchanged, whatever the spec or the random source says.
  World world(three_instances());
  world.pass();
  Json app = world.child("Secret", "db-app");
  Json superuser = world.child("Secret", "db-superuser");
  int calls = world.random.calls;
  CHECK(calls == 3);  // app, superuser, replication
  world.parent["spec"]["bootstrap"] = {{"initdb", {{"database", "shop"}, {"owner", "shop"}}}};
  world.settle();
  CHECK(world.random.calls == calls);
  CHECK(world.child("Secret", "db-app")["data"] == app["data"]);
  CHECK(world.child("Secret", "db-superuser")["data"] == superuser["data"]);

  SECTION("a Secret deleted by hand is generated again, with a new password") {
    world.remove("Secret", "db-app");
    world.pass();
    CHECK(world.random.calls == calls + 1);
    CHECK(world.child("Secret", "db-app")["data"]["password"] != app["data"]["password"]);
  }
}

TEST_CASE("replicas join one per pass once every instance is Ready", "[cluster][children]") {
  World world(three_instances());
  world.pass();
  world.pass();  // db-1 not Ready yet: nothing new
  CHECK(world.names("Pod") == std::vector<std::string>{"db-1"});
  CHECK(world.phase() == "SettingUpPrimary");
  world.set_ready("db-1", true);
  world.pass();
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(world.names("Pod") == std::vector<std::string>{"db-1", "db-2"});
  CHECK(world.role("db-2") == "replica");
  CHECK(world.phase() == "CreatingReplica");
  world.pass();  // db-2 not Ready: wait
  CHECK(world.names("Pod") == std::vector<std::string>{"db-1", "db-2"});
  world.set_ready("db-2", true);
  world.pass();
  CHECK(world.names("Pod") == std::vector<std::string>{"db-1", "db-2", "db-3"});
  world.set_ready("db-3", true);
  world.pass();
  CHECK(world.phase() == "Healthy");
  CHECK(world.condition("Ready"));
  CHECK_FALSE(world.condition("Progressing"));
  CHECK_FALSE(world.condition("Degraded"));
  CHECK_FALSE(world.last.requeue_after.has_value());
  CHECK(world.primary_pods() == "db-1");
  CHECK(world.parent["status"]["readyInstances"] == 3);
  CHECK(world.parent["status"]["instances"] == 3);
}

TEST_CASE("a deleted Pod is recreated on the same volume", "[cluster][children]") {
  World world(three_instances());
  world.settle();
  Json pvc = world.child("PersistentVolumeClaim", "db-3");
  world.remove("Pod", "db-3");
  world.pass();
  REQUIRE(world.has("Pod", "db-3"));
  CHECK(world.pod("db-3")["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == "db-3");
  CHECK(world.child("PersistentVolumeClaim", "db-3") == pvc);
  CHECK(world.role("db-3") == "replica");
}

TEST_CASE("a live Pod is carried over: only its labels change", "[cluster][children]") {
  World world(three_instances());
  world.settle();
  world.pod("db-2")["spec"]["nodeName"] = "node-a";  // set by the scheduler
  world.pass();
  CHECK(world.pod("db-2")["spec"]["nodeName"] == "node-a");
  for (const auto& child : world.last.children)
    if (child["kind"] == "Pod" && child["metadata"]["name"] == "db-2")
      CHECK(child["spec"]["nodeName"] == "node-a");
}

TEST_CASE("a bigger storage size expands the volumes; a smaller one is left for new volumes",
          "[cluster][children]") {
  World world(three_instances());
  world.settle();
  world.set_spec("storage", {{"size", "2Gi"}});
  world.pass();
  CHECK(world.child("PersistentVolumeClaim", "db-1")["spec"]["resources"]["requests"]["storage"] == "2Gi");
  world.set_spec("storage", {{"size", "512Mi"}});
  world.pass();
  CHECK(world.child("PersistentVolumeClaim", "db-1")["spec"]["resources"]["requests"]["storage"] == "2Gi");
}

TEST_CASE("an invalid spec changes nothing and says why", "[cluster][children]") {
  World world(three_instances());
  world.settle();
  auto before = world.children;
  world.set_spec("primaryUpdateMethod", "sideways");
  auto result = world.pass();
  CHECK(result.keep_unlisted);
  CHECK(result.children.empty());
  CHECK(world.children == before);
  CHECK(world.condition("Degraded"));
  CHECK(world.reason("Degraded") == "InvalidSpec");
  CHECK(world.phase() == "Invalid");
  CHECK(world.status("currentPrimary") == "db-1");
  CHECK(result.finalizers == std::vector<std::string>{"opctl.io/final-backup"});
}

TEST_CASE("a carried-over claim re-sends only the fields opctl-controller applied", "[cluster][children]") {
  // Given a claim the server has defaulted and bound, a pass should not claim volumeMode or volumeName:
  // that write would change nothing but managedFields, and show as "configured" on every second pass.
  World world(three_instances());
  world.settle();
  Json& pvc = world.child("PersistentVolumeClaim", "db-1");
  pvc["spec"]["volumeMode"] = "Filesystem";
  pvc["spec"]["volumeName"] = "pv-1";
  pvc["metadata"]["managedFields"] = Json::parse(R"([
    {"manager": "opctl-controller", "operation": "Apply", "fieldsType": "FieldsV1",
     "fieldsV1": {"f:metadata": {"f:labels": {"f:opctl.io/cluster": {}, "f:opctl.io/instance": {}}},
                  "f:spec": {"f:accessModes": {}, "f:resources": {"f:requests": {"f:storage": {}}}}}},
    {"manager": "kube-controller-manager", "operation": "Update", "fieldsType": "FieldsV1",
     "fieldsV1": {"f:spec": {"f:volumeName": {}}}}])");
  world.pass();
  const Json* sent = nullptr;
  for (const auto& child : world.last.children)
    if (child["kind"] == "PersistentVolumeClaim" && child["metadata"]["name"] == "db-1") sent = &child;
  REQUIRE(sent != nullptr);
  CHECK((*sent)["spec"] ==
        Json::parse(R"({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}})"));
}

TEST_CASE(
    "with walArchive the instances mount the Backup's volume and archive there; without, nothing changes",
    "[cluster][children]") {
  World plain(three_instances());
  plain.pass();
  std::string plain_hash = plain.pod("db-1")["metadata"]["annotations"].value("opctl.io/pod-spec-hash", "");

  World world(three_instances());
  world.set_spec("walArchive", {{"backup", "nightly"}});
  world.related = {{{"apiVersion", "opctl.io/v1alpha1"},
                    {"kind", "Backup"},
                    {"metadata", {{"name", "nightly"}, {"namespace", "shop"}}},
                    {"spec", {{"cluster", "db"}, {"target", {{"pvc", "backup-store"}}}}}}};
  world.pass();
  Json& pod = world.pod("db-1");
  CHECK(pod["metadata"]["annotations"].value("opctl.io/pod-spec-hash", "") != plain_hash);
  CHECK(pod["spec"]["volumes"].back() ==
        Json{{"name", "backups"}, {"persistentVolumeClaim", {{"claimName", "backup-store"}}}});
  const Json& container = pod["spec"]["containers"][0];
  CHECK(container["volumeMounts"].back() == Json{{"name", "backups"}, {"mountPath", "/backups"}});
  CHECK(container["env"].back() ==
        Json{{"name", "OPCTL_WAL_ARCHIVE_DIR"}, {"value", "/backups/nightly/wal"}});
  CHECK_FALSE(world.condition("Degraded"));

  // A Backup that does not exist: the instances run without archiving, and the Cluster says so.
  World missing(three_instances());
  missing.set_spec("walArchive", {{"backup", "nightly"}});
  missing.pass();
  CHECK(missing.pod("db-1")["metadata"]["annotations"].value("opctl.io/pod-spec-hash", "") == plain_hash);
  CHECK(missing.condition("Degraded"));
  CHECK(missing.reason("Degraded") == "BackupNotFound");
}

TEST_CASE("with walArchive naming an object-store Backup the instances get its archive command, keys and CA",
          "[cluster][children]") {
  World world(three_instances());
  world.set_spec("walArchive", {{"backup", "offsite"}});
  world.related = {Json::parse(R"({"apiVersion": "opctl.io/v1alpha1", "kind": "Backup",
      "metadata": {"name": "offsite", "namespace": "shop"},
      "spec": {"cluster": "db", "target": {"objectStore": {
        "destinationPath": "s3://backups/shop", "endpointURL": "https://10.213.0.1:9443",
        "endpointCA": {"name": "s3-ca", "key": "ca.crt"}, "wal": {"compression": "gzip"},
        "s3Credentials": {"accessKeyId": {"name": "s3-keys", "key": "id"},
                          "secretAccessKey": {"name": "s3-keys", "key": "secret"}}}}}})")};
  world.pass();
  Json& pod = world.pod("db-1");
  const Json& container = pod["spec"]["containers"][0];
  std::map<std::string, Json> env;
  for (const auto& variable : container["env"])
    env[variable["name"].get<std::string>()] = variable;
  CHECK(Json::parse(env["OPCTL_WAL_ARCHIVE_COMMAND"]["value"].get<std::string>()) ==
        Json::array({"barman-cloud-wal-archive", "--cloud-provider", "aws-s3", "--endpoint-url",
                     "https://10.213.0.1:9443", "--gzip", "s3://backups/shop", "db"}));
  CHECK(Json::parse(env["OPCTL_WAL_ARCHIVE_CHECK"]["value"].get<std::string>())[0] ==
        "barman-cloud-check-wal-archive");
  // The keys are references to the Secret, never values.
  CHECK(env["AWS_ACCESS_KEY_ID"]["valueFrom"]["secretKeyRef"]["name"] == "s3-keys");
  CHECK_FALSE(env["AWS_SECRET_ACCESS_KEY"].contains("value"));
  CHECK(env["AWS_CA_BUNDLE"]["value"] == "/etc/opctl/object-store-ca/ca.crt");
  CHECK(env.count("OPCTL_WAL_ARCHIVE_DIR") == 0);
  CHECK(container["volumeMounts"].back()["mountPath"] == "/etc/opctl/object-store-ca");
  CHECK(pod["spec"]["volumes"].back()["secret"]["secretName"] == "s3-ca");
  for (const auto& volume : pod["spec"]["volumes"])
    CHECK(volume["name"] != "backups");
  CHECK_FALSE(world.condition("Degraded"));
}
