#include <catch2/catch.hpp>

#include "kinds/backup/backup_reconciler.hpp"
#include "kinds/kind_registry.hpp"
#include "kinds_fixtures.hpp"

using opctl::Problem;
using opctl::model::Json;
using opctl::model::Object;
using namespace opctl::kinds;

namespace {

std::string header(const std::string& name = "nightly") {
  return "apiVersion: opctl.io/v1alpha1\nkind: Backup\nmetadata:\n  name: " + name +
         "\n  namespace: shop\nspec:\n";
}

Object cluster_object(const std::string& name) {
  return test::object_from_yaml("apiVersion: opctl.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: " + name +
                                    "\n  namespace: shop\nspec:\n  instances: 1\n",
                                "cluster.yaml");
}

std::vector<std::string> rendered(const std::vector<Problem>& problems) {
  std::vector<std::string> lines;
  for (const auto& problem : problems)
    lines.push_back(problem.to_string());
  return lines;
}

}  // namespace

TEST_CASE("given a 6-field schedule, validate() rejects it at its line with the 5-field equivalent",
          "[kinds][backup]") {
  auto object = test::object_from_yaml(header() +
                                       "  cluster: db\n  schedule: \"0 0 2 * * *\"\n  target:\n    pvc: b\n");
  auto problems = rendered(backup::BackupReconciler().validate(object));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("backup.yaml:8: spec.schedule:") == 0);
  CHECK(problems[0].find("\"0 2 * * *\"") != std::string::npos);
}

TEST_CASE("given bad fields, validate() reports each with file:line and field path", "[kinds][backup]") {
  auto object = test::object_from_yaml(header() +
                                       "  cluster: Db_1\n"             // 7
                                       "  schedule: \"61 * * * *\"\n"  // 8
                                       "  timeZone: Mars/Base\n"       // 9
                                       "  method: pg_dumpall\n"        // 10
                                       "  retention:\n"                // 11
                                       "    keep: 0\n"                 // 12
                                       "    maxAge: soon\n"            // 13
                                       "  target:\n"                   // 14
                                       "    pvc: b\n"                  // 15
                                       "    volume: {emptyDir: {}}\n"  // 16
                                       "  colour: blue\n");            // 17
  auto problems = rendered(backup::BackupReconciler().validate(object));
  auto has = [&](const std::string& text) {
    return std::any_of(problems.begin(), problems.end(),
                       [&](const auto& line) { return line.find(text) == 0; });
  };
  CHECK(has("backup.yaml:7: spec.cluster: \"Db_1\" is not a Cluster name"));
  CHECK(has("backup.yaml:8: spec.schedule: minute field: 61 is out of range 0-59"));
  CHECK(has("backup.yaml:9: spec.timeZone: unknown time zone \"Mars/Base\""));
  CHECK(has("backup.yaml:10: spec.method: \"pg_dumpall\" is not one of pg_basebackup, pg_dump"));
  CHECK(has("backup.yaml:12: spec.retention.keep: must be at least 1"));
  CHECK(has("backup.yaml:13: spec.retention.maxAge: must be a duration"));
  CHECK(has("backup.yaml:14: spec.target: exactly one of pvc, volume, objectStore must be set"));
  CHECK(has("backup.yaml:17: spec.colour: unknown field \"colour\""));
  CHECK(problems.size() == 8);
}

TEST_CASE("given missing required fields and a long name, validate() says so", "[kinds][backup]") {
  auto object = test::object_from_yaml(header(std::string(49, 'a')) + "  schedule: \"@daily\"\n");
  auto problems = rendered(backup::BackupReconciler().validate(object));
  CHECK(problems.size() == 3);
  CHECK(problems[0].find("backup.yaml:4: metadata.name: a Backup name has at most 48 characters") == 0);
  CHECK(problems[1] == "backup.yaml:6: spec.cluster: missing required field");
  CHECK(problems[2] == "backup.yaml:6: spec.target: missing required field");
}

TEST_CASE("given a Cluster the manifests do not hold, the set check is an error; with none at all a warning",
          "[kinds][backup]") {
  auto object = test::object_from_yaml(header() + "  cluster: dbx\n  target:\n    pvc: b\n");
  backup::BackupReconciler reconciler;
  auto with_other = reconciler.check_in_set(object, {object, cluster_object("db")});
  REQUIRE(with_other.errors.size() == 1);
  CHECK(with_other.errors[0].to_string() ==
        "backup.yaml:7: spec.cluster: Cluster \"dbx\" is not in the manifests in namespace shop (Clusters "
        "there: db)");
  auto with_match = reconciler.check_in_set(object, {object, cluster_object("dbx")});
  CHECK(with_match.errors.empty());
  CHECK(with_match.warnings.empty());
  auto without = reconciler.check_in_set(object, {object});
  CHECK(without.errors.empty());
  REQUIRE(without.warnings.size() == 1);
  CHECK(without.warnings[0].message.find("must exist in namespace shop") != std::string::npos);
}

TEST_CASE("given an hourly schedule with keep: 7, validate warns that retention cannot hold it",
          "[kinds][backup]") {
  auto object = test::object_from_yaml(header() +
                                       "  cluster: db\n  schedule: \"0 * * * *\"\n  target:\n    pvc: b\n"
                                       "  retention:\n    keep: 7\n");
  auto findings = backup::BackupReconciler().check_in_set(object, {object, cluster_object("db")});
  REQUIRE(findings.warnings.size() == 1);
  CHECK(findings.warnings[0].to_string() ==
        "backup.yaml:8: spec.schedule: \"0 * * * *\" fires more often than the retention can hold: keep: 7 "
        "holds only the last 7h of backups (for daily backups use \"0 0 * * *\")");
}

TEST_CASE("retention advice: keep shorter than maxAge, no retention, and a schedule that fits",
          "[kinds][backup]") {
  auto shorter = backup::retention_advice("0 3 * * *", "", 7, std::chrono::hours(24 * 30));
  REQUIRE(shorter.size() == 1);
  CHECK(shorter[0].find("keep: 7 deletes each backup after about 1w, long before maxAge 30d") !=
        std::string::npos);
  CHECK(backup::retention_advice("0 3 * * *", "", std::nullopt, std::nullopt)[0].find("no retention") == 0);
  CHECK(backup::retention_advice("0 3 * * *", "", 7, std::nullopt).empty());
  CHECK(backup::retention_advice("0 3 * * *", "Europe/Berlin", 7, std::chrono::hours(24 * 7)).empty());
  CHECK(backup::retention_advice("* * * * *", "", std::nullopt, std::chrono::hours(24))[0].find(
            "fires more than 100 times") != std::string::npos);
}

TEST_CASE("time zone advice: a zone that shifts by half an hour or off the hour is warned about",
          "[kinds][backup]") {
  auto lord_howe = backup::time_zone_advice("0 3 * * *", "Australia/Lord_Howe");
  REQUIRE(lord_howe);
  CHECK(lord_howe->find(
            "Australia/Lord_Howe shifts its clock by other than a whole hour, off the hour or at midnight") ==
        0);
  CHECK(backup::time_zone_advice("0 3 * * *", "Pacific/Chatham"));
  CHECK(backup::time_zone_advice("0 3 * * *", "America/Santiago"));
  CHECK_FALSE(backup::time_zone_advice("0 3 * * *", "Europe/Berlin"));
  CHECK_FALSE(backup::time_zone_advice("0 3 * * *", ""));
  CHECK_FALSE(backup::time_zone_advice("@every 90m", "Australia/Lord_Howe"));  // no wall clock involved
}

TEST_CASE("the registry checks every custom resource and leaves other kinds alone", "[kinds]") {
  auto registry = builtin_registry();
  auto bad = test::object_from_yaml(header() +
                                    "  cluster: db\n  schedule: \"0 0 2 * * *\"\n  target:\n    pvc: b\n");
  auto other = test::object_from_yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", "cm.yaml");
  auto findings = registry.check({bad, other, cluster_object("db")});
  REQUIRE(findings.errors.size() >= 1);
  CHECK(findings.errors[0].file == "backup.yaml");
}

TEST_CASE("the Backup CRD comes from the same schema: enums, defaults, minimums and printer columns",
          "[kinds][backup]") {
  Json crd = backup::BackupReconciler().custom_resource_definition();
  CHECK(crd["metadata"]["name"] == "backups.opctl.io");
  CHECK(crd["spec"]["scope"] == "Namespaced");
  const Json& version = crd["spec"]["versions"][0];
  CHECK(version["name"] == "v1alpha1");
  CHECK(version["subresources"]["status"] == Json::object());
  const Json& spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"];
  CHECK(spec["required"] == Json::array({"cluster", "target"}));
  CHECK(spec["properties"]["method"]["enum"] == Json::array({"pg_basebackup", "pg_dump"}));
  CHECK(spec["properties"]["method"]["default"] == "pg_basebackup");
  CHECK(spec["properties"]["suspend"]["default"] == false);
  CHECK(spec["properties"]["retention"]["properties"]["keep"]["minimum"] == 1);
  CHECK(spec["properties"]["target"]["x-kubernetes-validations"][0]["rule"] ==
        "(has(self.pvc) ? 1 : 0) + (has(self.volume) ? 1 : 0) + (has(self.objectStore) ? 1 : 0) == 1");
  CHECK(spec["properties"]["target"]["properties"]["volume"]["x-kubernetes-preserve-unknown-fields"] == true);
  const Json& conditions =
      version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["conditions"];
  CHECK(conditions["x-kubernetes-list-type"] == "map");
  std::vector<std::string> columns;
  for (const auto& column : version["additionalPrinterColumns"])
    columns.push_back(column["name"]);
  CHECK(columns == std::vector<std::string>{"Cluster", "Schedule", "Suspend", "Last Success", "Artifacts",
                                            "Next", "Ready", "Age"});
}
