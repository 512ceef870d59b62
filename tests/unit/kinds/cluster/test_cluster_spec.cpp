#include <catch2/catch.hpp>

#include "kinds/cluster/cluster_reconciler.hpp"
#include "kinds/cluster/cluster_spec.hpp"
#include "model/yaml_document.hpp"

using namespace opctl::kinds::cluster;
using opctl::model::Json;

namespace {

Json resource(Json spec, const std::string& name = "db") {
  return {{"apiVersion", "opctl.io/v1alpha1"},
          {"kind", "Cluster"},
          {"metadata", {{"name", name}, {"namespace", "shop"}}},
          {"spec", std::move(spec)}};
}

std::vector<std::string> fields(const Json& cluster) {
  std::vector<std::string> out;
  for (const auto& issue : check_cluster(cluster))
    out.push_back(issue.field);
  return out;
}

}  // namespace

TEST_CASE("a minimal Cluster gets CloudNativePG's defaults, with switchover for the primary",
          "[cluster][spec]") {
  auto cluster = resource({{"storage", {{"size", "1Gi"}}}});
  REQUIRE(check_cluster(cluster).empty());
  ClusterSpec spec = parse_cluster_spec(cluster);
  CHECK(spec.instances == 1);
  CHECK(spec.image_name == k_default_image);
  CHECK(spec.major_version == 15);
  CHECK(spec.primary_update_method == PrimaryUpdateMethod::switchover);
  CHECK(spec.primary_update_strategy == PrimaryUpdateStrategy::unsupervised);
  CHECK(spec.failover_delay.count() == 0);
  CHECK(spec.database == "app");
  CHECK(spec.owner == "app");
  CHECK(spec.postgres_uid == 26);
  CHECK_FALSE(spec.storage.retain_on_scale_down);
  CHECK(spec.recovery_backup.empty());
  CHECK(spec.final_backup.empty());
}

TEST_CASE("every spec field is parsed", "[cluster][spec]") {
  auto cluster =
      resource({{"instances", 3},
                {"imageName", "ghcr.io/cloudnative-pg/postgresql:16.4-bookworm"},
                {"storage", {{"size", "10Gi"}, {"storageClass", "fast"}, {"retainOnScaleDown", true}}},
                {"resources", {{"requests", {{"cpu", "500m"}}}}},
                {"primaryUpdateMethod", "restart"},
                {"primaryUpdateStrategy", "supervised"},
                {"failoverDelay", 30},
                {"bootstrap", {{"recovery", {{"backup", "nightly"}}}}},
                {"finalBackup", {{"backup", "nightly"}}}});
  REQUIRE(check_cluster(cluster).empty());
  ClusterSpec spec = parse_cluster_spec(cluster);
  CHECK(spec.instances == 3);
  CHECK(spec.major_version == 16);
  CHECK(spec.storage.storage_class == "fast");
  CHECK(spec.storage.retain_on_scale_down);
  CHECK(spec.resources["requests"]["cpu"] == "500m");
  CHECK(spec.primary_update_method == PrimaryUpdateMethod::restart);
  CHECK(spec.primary_update_strategy == PrimaryUpdateStrategy::supervised);
  CHECK(spec.failover_delay.count() == 30);
  CHECK(spec.recovery_backup == "nightly");
  CHECK(spec.final_backup == "nightly");
  CHECK(spec.namespace_name == "shop");
}

TEST_CASE("spec problems name their field", "[cluster][spec]") {
  CHECK(fields(resource({{"instances", 0}, {"storage", {{"size", "1Gi"}}}})) ==
        std::vector<std::string>{"spec.instances"});
  CHECK(fields(resource({{"instances", "3"}, {"storage", {{"size", "1Gi"}}}})) ==
        std::vector<std::string>{"spec.instances"});
  // More instances than PostgreSQL's replication limits are sized for (opctl instance sets them).
  CHECK(fields(resource({{"instances", 33}, {"storage", {{"size", "1Gi"}}}})) ==
        std::vector<std::string>{"spec.instances"});
  CHECK(fields(resource({{"instances", 32}, {"storage", {{"size", "1Gi"}}}})).empty());
  CHECK(fields(resource({{"instances", 1}})) == std::vector<std::string>{"spec.storage"});
  CHECK(fields(resource({{"storage", {{"size", "lots"}}}})) == std::vector<std::string>{"spec.storage.size"});
  CHECK(fields(resource({{"storage", {{"size", "0Gi"}}}})) == std::vector<std::string>{"spec.storage.size"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}}, {"primaryUpdateMethod", "recreate"}})) ==
        std::vector<std::string>{"spec.primaryUpdateMethod"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}}, {"failoverDelay", -1}})) ==
        std::vector<std::string>{"spec.failoverDelay"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}}, {"instance", 3}})) ==
        std::vector<std::string>{"spec.instance"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}}, {"imageName", "postgres:latest"}})) ==
        std::vector<std::string>{"spec.imageName"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}},
                         {"bootstrap", {{"initdb", Json::object()}, {"recovery", {{"backup", "b"}}}}}})) ==
        std::vector<std::string>{"spec.bootstrap"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}}, {"bootstrap", {{"recovery", Json::object()}}}})) ==
        std::vector<std::string>{"spec.bootstrap.recovery.backup"});
  CHECK(fields(resource(
            {{"storage", {{"size", "1Gi"}}},
             {"bootstrap", {{"recovery", {{"backup", "b"}, {"targetTime", "2026-12-01 12:00"}}}}}})) ==
        std::vector<std::string>{"spec.bootstrap.recovery.targetTime"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}},
                         {"bootstrap", {{"recovery", {{"backup", "b"}, {"targetLSN", "3000060"}}}}}})) ==
        std::vector<std::string>{"spec.bootstrap.recovery.targetLSN"});
  CHECK(fields(resource(
            {{"storage", {{"size", "1Gi"}}},
             {"bootstrap",
              {{"recovery",
                {{"backup", "b"}, {"targetTime", "2026-12-01T12:00:00Z"}, {"targetLSN", "0/3000060"}}}}}})) ==
        std::vector<std::string>{"spec.bootstrap.recovery"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}}, {"walArchive", Json::object()}})) ==
        std::vector<std::string>{"spec.walArchive.backup"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}}}, std::string(51, 'a'))) ==
        std::vector<std::string>{"metadata.name"});
  CHECK(fields(resource({{"storage", {{"size", "1Gi"}}}}, "Shop_DB")) ==
        std::vector<std::string>{"metadata.name"});
}

TEST_CASE("the primary Lease's timings must fence a primary before a replica may take over",
          "[cluster][spec]") {
  auto lease = [](Json timings) {
    return resource({{"storage", {{"size", "1Gi"}}}, {"primaryLease", timings}});
  };
  CHECK(fields(lease(Json::object())).empty());  // 15, 10, 2
  CHECK(fields(lease({{"leaseDurationSeconds", 8}, {"renewDeadlineSeconds", 5}, {"retryPeriodSeconds", 2}}))
            .empty());
  CHECK(fields(lease({{"leaseDurationSeconds", 12}})) ==
        std::vector<std::string>{"spec.primaryLease.renewDeadlineSeconds"});  // 10 + 3 > 12
  CHECK(fields(lease({{"renewDeadlineSeconds", 3}})) ==
        std::vector<std::string>{"spec.primaryLease.retryPeriodSeconds"});  // 2 * 2 > 3
  CHECK(fields(lease({{"leaseDurationSeconds", 4}})) ==
        std::vector<std::string>{"spec.primaryLease.leaseDurationSeconds"});
  auto issues = check_cluster(lease({{"leaseDurationSeconds", 12}}));
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].message.find("must have stopped before a replica may take over") != std::string::npos);
}

TEST_CASE("the major version comes from the image tag", "[cluster][spec]") {
  CHECK(image_major_version("ghcr.io/cloudnative-pg/postgresql:16.4") == 16);
  CHECK(image_major_version("ghcr.io/cloudnative-pg/postgresql:17.5-standard-bookworm") == 17);
  CHECK(image_major_version("postgres:18") == 18);
  CHECK(image_major_version("registry:5000/pg/postgresql:15.2@sha256:abc") == 15);
  CHECK_FALSE(image_major_version("postgres").has_value());
  CHECK_FALSE(image_major_version("registry:5000/postgres").has_value());
  CHECK_FALSE(image_major_version("postgres:latest").has_value());
  CHECK_FALSE(image_major_version("postgres:9.6").has_value());
  CHECK_FALSE(image_major_version("postgres@sha256:abc").has_value());
}

TEST_CASE("quantities compare by bytes", "[cluster][spec]") {
  CHECK(*quantity_bytes("1Gi") == Approx(1073741824.0));
  CHECK(*quantity_bytes("1G") < *quantity_bytes("1Gi"));
  CHECK(*quantity_bytes("1.5Gi") > *quantity_bytes("1Gi"));
  CHECK(*quantity_bytes("2048Mi") == Approx(*quantity_bytes("2Gi")));
  CHECK_FALSE(quantity_bytes("1 Gi").has_value());
  CHECK_FALSE(quantity_bytes("Gi").has_value());
}

TEST_CASE("validate points at the file and line of the bad field", "[cluster][spec]") {
  auto documents = opctl::model::parse_yaml_documents(
      "apiVersion: opctl.io/v1alpha1\n"
      "kind: Cluster\n"
      "metadata:\n"
      "  name: db\n"
      "spec:\n"
      "  instances: 0\n"
      "  storage:\n"
      "    size: 1Gi\n"
      "  primaryUpdateMethod: sideways\n",
      "db.yaml");
  REQUIRE(documents.size() == 1);
  opctl::model::Object object(documents.front().value, {"db.yaml", documents.front().line},
                              documents.front().field_lines);
  auto problems = make_cluster_reconciler()->validate(object);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].file == "db.yaml");
  CHECK(problems[0].line == 6);
  CHECK(problems[0].field == "spec.instances");
  CHECK(problems[1].line == 9);
  CHECK(problems[1].field == "spec.primaryUpdateMethod");
}
