#include "kinds/cluster/cluster_spec.hpp"

#include <fmt/format.h>

#include <cctype>
#include <regex>

#include "kinds/cluster/cluster_annotations.hpp"
#include "kinds/cluster/cluster_certificates.hpp"
#include "kinds/cluster/cluster_names.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;
using schema::Schema;

// Every child name is "<cluster>-<suffix>" and must stay a DNS label (63):
// the longest suffix is "-final-backup" (13) and Pod serials take a few digits.
constexpr std::size_t k_max_name_length = 50;
constexpr const char* k_quantity_pattern = R"(^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$)";
constexpr const char* k_identifier_pattern = "^[a-z_][a-z0-9_]{0,62}$";

std::string check_image(const Json& value) {
  if (!value.is_string() || image_major_version(value.get<std::string>())) return "";
  return "the image tag must start with the PostgreSQL major version (10 or later), e.g. "
         "ghcr.io/opctl/postgresql:15-0.1.0, to tell a minor update from a major upgrade";
}

std::string check_size(const Json& value) {
  if (!value.is_string()) return "";
  auto bytes = quantity_bytes(value.get<std::string>());  // a malformed size is the pattern's to report
  return !bytes || *bytes > 0 ? "" : "must be larger than zero";
}

std::string check_bootstrap(const Json& value) {
  if (value.is_object() && value.contains("initdb") && value.contains("recovery"))
    return "initdb and recovery exclude each other: a Cluster starts empty or from a Backup";
  return "";
}

std::string check_recovery_target(const Json& value) {
  if (value.is_object() && value.contains("targetTime") && value.contains("targetLSN"))
    return "targetTime and targetLSN exclude each other";
  return "";
}

Schema backup_reference(const std::string& what) {
  return Schema::object().describe(what).field(
      "backup", Schema::string().describe("name of a Backup in the Cluster's namespace"), true);
}

Schema storage_schema() {
  return Schema::object()
      .describe("One PersistentVolumeClaim per instance")
      .field("size",
             Schema::string()
                 .describe("requested size, e.g. 10Gi; raising it expands existing volumes")
                 .pattern(k_quantity_pattern, "a quantity such as 10Gi")
                 .check(check_size),
             true)
      .field("storageClass",
             Schema::string().describe("StorageClass of new volumes; empty: the default class"))
      .field("retainOnScaleDown", Schema::boolean()
                                      .describe("keep the volume of an instance removed by a scale-down "
                                                "(annotated opctl.io/detached, never reused)")
                                      .default_value(false));
}

Schema bootstrap_schema() {
  auto initdb = Schema::object()
                    .describe("A new, empty database")
                    .field("database", Schema::string()
                                           .describe("the application database")
                                           .pattern(k_identifier_pattern, "a lowercase SQL identifier")
                                           .default_value("app"))
                    .field("owner", Schema::string()
                                        .describe("the application user owning it")
                                        .pattern(k_identifier_pattern, "a lowercase SQL identifier")
                                        .default_value("app"));
  return Schema::object()
      .describe("How the first instance gets its data; only read when the Cluster is created")
      .field("initdb", std::move(initdb))
      .field("recovery",
             backup_reference("Start from the latest artifact of a Backup, or from the point in time given")
                 .field("targetTime",
                        Schema::string()
                            .describe(
                                "recover to this moment (UTC, 2026-12-01T12:00:00Z): the newest "
                                "pg_basebackup artifact that ended before it, then the Backup's WAL archive "
                                "up to it")
                            .pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
                                     "a UTC time such as 2026-12-01T12:00:00Z"))
                 .field("targetLSN",
                        Schema::string()
                            .describe("recover up to this WAL position (0/3000060), as targetTime")
                            .pattern("^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$", "an LSN such as 0/3000060"))
                 .check(check_recovery_target))
      .check(check_bootstrap);
}

std::string string_at(const Json& object, const char* key, const std::string& fallback) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : fallback;
}

long integer_at(const Json& object, const char* key, long fallback) {
  return object.is_object() && object.contains(key) && object[key].is_number_integer()
             ? object[key].get<long>()
             : fallback;
}

const Json k_empty_object = Json::object();
const std::regex k_dns_label("^[a-z]([-a-z0-9]*[a-z0-9])?$");
const std::regex k_quantity(k_quantity_pattern);

struct Unit {
  const char* suffix;
  long double bytes;
};
constexpr Unit k_units[] = {{"Ki", 1024.0L},
                            {"Mi", 1048576.0L},
                            {"Gi", 1073741824.0L},
                            {"Ti", 1099511627776.0L},
                            {"Pi", 1125899906842624.0L},
                            {"Ei", 1152921504606846976.0L},
                            {"k", 1e3L},
                            {"M", 1e6L},
                            {"G", 1e9L},
                            {"T", 1e12L},
                            {"P", 1e15L},
                            {"E", 1e18L}};

const Json& child(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_object() ? object[key] : k_empty_object;
}

}  // namespace

Schema cluster_spec_schema() {
  return Schema::object()
      .describe(
          "A PostgreSQL cluster: one primary and streaming replicas, managed the way CloudNativePG does")
      .field("instances", Schema::integer()
                              .describe("number of instances, the primary included")
                              .minimum(1)
                              .maximum(k_max_instances)
                              .default_value(1))
      // No default in the schema: the API server would write it into every
      // Cluster, and a site default (opctl.yaml spec.clusterDefaults.imageName)
      // could never apply.
      .field("imageName",
             Schema::string()
                 .describe(std::string("PostgreSQL image; its tag starts with the major version. "
                                       "Default: the site default (opctl.yaml "
                                       "spec.clusterDefaults.imageName), else ") +
                           k_default_image)
                 .check(check_image))
      .field("postgresUID",
             Schema::integer().describe("user id PostgreSQL runs as").minimum(0).default_value(26))
      .field("postgresGID",
             Schema::integer().describe("group id PostgreSQL runs as").minimum(0).default_value(26))
      .field("storage", storage_schema(), true)
      .field("resources",
             Schema::free_form().describe(
                 "container resources (requests, limits) of every instance's container and of the "
                 "Cluster's Jobs (restore, major upgrade, final backup)"))
      .field("postgresql", postgresql_schema())
      .field("enableSuperuserAccess", superuser_access_schema())
      .field("managed", managed_schema())
      .field("certificates", certificates_schema())
      .field("affinity", affinity_schema())
      .field("topologySpreadConstraints", topology_spread_schema())
      .field("priorityClassName",
             Schema::string().describe("PriorityClass of the instances and the Cluster's Jobs"))
      .field("probes", probes_schema())
      .field("monitoring", monitoring_schema())
      .field("primaryUpdateMethod", Schema::string()
                                        .describe("how the primary gets an update: switchover to the most "
                                                  "advanced updated replica, or restart in place")
                                        .enumerate({"switchover", "restart"})
                                        .default_value("switchover"))
      .field("primaryUpdateStrategy",
             Schema::string()
                 .describe("supervised: a rolling update stops before the primary until "
                           "`opctl promote`")
                 .enumerate({"unsupervised", "supervised"})
                 .default_value("unsupervised"))
      .field("failoverDelay", Schema::integer()
                                  .describe("seconds the primary may be gone or not Ready before a failover")
                                  .minimum(0)
                                  .default_value(0))
      .field(
          "primaryLease",
          Schema::object()
              .describe("timings of the primary Lease the instances hold and fail over through "
                        "(opctl-cluster-kind(5), THE PRIMARY LEASE)")
              .field(
                  "leaseDurationSeconds",
                  Schema::integer()
                      .describe("how long a replica waits, from the last renewal it saw, before it may take "
                                "over")
                      .minimum(5)
                      .default_value(15))
              .field("renewDeadlineSeconds",
                     Schema::integer()
                         .describe("a primary that has not renewed for this long stops accepting writes")
                         .minimum(2)
                         .default_value(10))
              .field("retryPeriodSeconds",
                     Schema::integer().describe("how often the primary renews").minimum(1).default_value(2)))
      .field("minSyncReplicas",
             Schema::integer()
                 .describe("the fewest replicas that must confirm a commit before it is acknowledged "
                           "(synchronous replication); writes wait while fewer are streaming")
                 .minimum(0)
                 .default_value(0))
      .field("maxSyncReplicas",
             Schema::integer()
                 .describe("the most replicas a commit waits for; 0: asynchronous replication")
                 .minimum(0)
                 .default_value(0))
      .field("bootstrap", bootstrap_schema())
      .field("finalBackup",
             backup_reference("When the Cluster is deleted, back up the primary's data into this "
                              "Backup's target before the children are removed"))
      .field("walArchive",
             backup_reference("Archive every WAL segment of the primary to this Backup's target "
                              "(/backups/<backup>/wal), for point-in-time recovery"));
}

Schema cluster_status_schema() {
  auto timestamp = [](const char* what) { return Schema::string().format("date-time").describe(what); };
  auto image_info = Schema::object()
                        .describe("the image and major version the data directory belongs to")
                        .field("image", Schema::string())
                        .field("majorVersion", Schema::integer());
  auto recovery = Schema::object()
                      .describe("where the Cluster was restored from")
                      .field("backup", Schema::string())
                      .field("job", Schema::string())
                      .field("phase", Schema::string().describe("Restoring, Completed or Failed"))
                      .field("completedAt", timestamp("when the restore Job finished"));
  auto major_upgrade = Schema::object()
                           .describe("the major version upgrade in progress")
                           .field("fromImage", Schema::string())
                           .field("toImage", Schema::string())
                           .field("fromMajor", Schema::integer())
                           .field("toMajor", Schema::integer())
                           .field("primary", Schema::string())
                           .field("job", Schema::string())
                           .field("phase", Schema::string());
  auto final_backup = Schema::object()
                          .describe("the backup taken when the Cluster is deleted")
                          .field("backup", Schema::string())
                          .field("job", Schema::string())
                          .field("phase", Schema::string());
  return Schema::object()
      .field("instances", Schema::integer().describe("instances with a volume"))
      .field("readyInstances", Schema::integer())
      .field("instanceNames", Schema::array(Schema::string()))
      .field("currentPrimary", Schema::string().describe("the instance serving as primary"))
      .field("currentPrimaryTimestamp", timestamp("when currentPrimary last changed"))
      .field("targetPrimary", Schema::string().describe("the instance that should be primary"))
      .field("targetPrimaryTimestamp", timestamp("when targetPrimary last changed"))
      .field("currentPrimaryFailingSinceTimestamp",
             timestamp("when the primary was first seen gone or not Ready"))
      .field("latestGeneratedNode", Schema::integer().describe("the highest instance serial ever used"))
      .field("phase", Schema::string())
      .field("phaseReason", Schema::string())
      .field("pgDataImageInfo", std::move(image_info))
      .field("restartingPrimary", Schema::string().describe("the primary being restarted in place"))
      .field("recovery", std::move(recovery))
      .field("majorUpgrade", std::move(major_upgrade))
      .field("finalBackup", std::move(final_backup))
      .field("instanceStates",
             Schema::array(
                 Schema::object()
                     .describe("what an instance's manager last reported on its Pod")
                     .field("name", Schema::string())
                     .field("role", Schema::string().describe(
                                        "primary, replica, stopped or fenced: what PostgreSQL is"))
                     .field("ready", Schema::boolean())
                     .field("timeline", Schema::string())
                     .field("currentLsn", Schema::string().describe("the primary's WAL position"))
                     .field("receivedLsn", Schema::string().describe("a replica's last received position"))
                     .field("replayLsn", Schema::string().describe("a replica's last replayed position"))
                     .field("lagBytes",
                            Schema::integer().describe("the primary's position minus the replayed one"))
                     .field("streaming", Schema::boolean())
                     .field("error", Schema::string())))
      .field("walArchive",
             Schema::object()
                 .describe("spec.walArchive's Backup and the primary's archiver, as it last reported")
                 .field("backup", Schema::string())
                 .field("archived", Schema::integer().describe("segments archived since the server started"))
                 .field("lastArchivedWal", Schema::string())
                 .field("lastArchivedTime", Schema::string().format("date-time"))
                 .field("failed", Schema::integer().describe("failed attempts since the server started"))
                 .field("lastFailedWal", Schema::string())
                 .field("lastFailedTime", Schema::string().format("date-time")))
      .field("hibernated",
             Schema::boolean().describe("opctl.io/hibernation stopped the Pods; cleared once the primary "
                                        "serves again"))
      .field("configuration",
             Schema::object()
                 .describe("whether spec.postgresql is in force on every instance, and how it got there")
                 .field("hash", Schema::string().describe("the configuration this describes"))
                 .field("phase", Schema::string().describe("Applying or Applied"))
                 .field("appliedBy",
                        Schema::string().describe("Start (loaded when the instances started), Reload, or "
                                                  "Restart (a parameter needed a rolling restart)"))
                 .field("pendingRestart",
                        Schema::array(Schema::string()).describe("instances waiting for a restart"))
                 .field("restartParameters",
                        Schema::array(Schema::string()).describe("the parameters that needed a restart")))
      .field("managedRolesStatus", managed_status_schema("roles"))
      .field("managedDatabasesStatus", managed_status_schema("databases"))
      .field("lastPromoteRequest",
             Schema::string().describe("the opctl.io/promote annotation last acted upon"))
      .field("lastRestartRequest",
             Schema::string().describe("the opctl.io/restart-instance annotation last acted upon"))
      .field("observedGeneration", Schema::integer())
      .field("conditions", schema::conditions_schema());
}

std::vector<schema::Issue> check_cluster(const Json& resource) {
  std::vector<schema::Issue> issues;
  std::string name = resource.contains("metadata") ? string_at(resource["metadata"], "name", "") : "";
  if (!name.empty() && (name.size() > k_max_name_length || !std::regex_match(name, k_dns_label)))
    issues.push_back(
        {"/metadata/name", "metadata.name",
         fmt::format("\"{}\" must be a DNS label of at most {} characters (lowercase letters, digits, "
                     "'-'), since it prefixes the names of its Pods, Services and Secrets",
                     name, k_max_name_length)});
  // A malformed value is refused before it is applied (a live one is reported by the pass).
  if (auto hibernation = parse_hibernation(annotation_text(resource, k_hibernation_annotation));
      !hibernation.error.empty())
    issues.push_back(
        {"/metadata/annotations/opctl.io~1hibernation", "metadata.annotations", hibernation.error});
  if (auto fenced = parse_fenced_instances(annotation_text(resource, k_fenced_instances_annotation));
      !fenced.error.empty())
    issues.push_back(
        {"/metadata/annotations/opctl.io~1fenced-instances", "metadata.annotations", fenced.error});
  if (!resource.contains("spec") || resource["spec"].is_null()) {
    issues.push_back({"/spec", "spec", "missing required field"});
    return issues;
  }
  // Built once and only read afterwards: its patterns compile to RE2 programs, and building it for every
  // check cost a third of a no-op pass over 200 Clusters (bench/custom_kinds_scale.py).
  static const Schema checked = cluster_spec_schema();
  checked.validate(resource["spec"], "/spec", "spec", issues);
  const Json& spec = resource["spec"];
  for (auto& issue : configuration_issues(spec))
    issues.push_back(std::move(issue));
  const Json& initdb = child(child(spec, "bootstrap"), "initdb");
  for (auto& issue :
       managed_issues(spec, string_at(initdb, "owner", "app"), string_at(initdb, "database", "app")))
    issues.push_back(std::move(issue));
  for (auto& issue : certificates_issues(spec))
    issues.push_back(std::move(issue));
  if (issues.empty() && spec.is_object()) {
    long long instances = integer_at(spec, "instances", 1);
    long long min_sync = integer_at(spec, "minSyncReplicas", 0);
    long long max_sync = integer_at(spec, "maxSyncReplicas", 0);
    if (min_sync > max_sync)
      issues.push_back({"/spec/minSyncReplicas", "spec.minSyncReplicas",
                        fmt::format("{} is more than maxSyncReplicas ({})", min_sync, max_sync)});
    const Json& lease = spec.contains("primaryLease") && spec["primaryLease"].is_object()
                            ? spec["primaryLease"]
                            : Json::object();
    long long duration = integer_at(lease, "leaseDurationSeconds", 15);
    long long renew = integer_at(lease, "renewDeadlineSeconds", 10);
    long long retry = integer_at(lease, "retryPeriodSeconds", 2);
    // The invariant that keeps two primaries from accepting writes at once (opctl-cluster-kind(5), Timing).
    if (renew + 3 > duration)
      issues.push_back(
          {"/spec/primaryLease/renewDeadlineSeconds", "spec.primaryLease.renewDeadlineSeconds",
           fmt::format("{} must be at most leaseDurationSeconds - 3 ({}): a primary that cannot renew "
                       "must have stopped before a replica may take over",
                       renew, duration - 3)});
    if (2 * retry > renew)
      issues.push_back(
          {"/spec/primaryLease/retryPeriodSeconds", "spec.primaryLease.retryPeriodSeconds",
           fmt::format("{} must be at most half of renewDeadlineSeconds ({}): a renewal is tried at "
                       "least twice before the primary stops",
                       retry, renew)});
    if (max_sync > 0 && max_sync >= instances)
      issues.push_back(
          {"/spec/maxSyncReplicas", "spec.maxSyncReplicas",
           fmt::format("{} must be less than instances ({}): a commit can only wait for replicas", max_sync,
                       instances)});
  }
  return issues;
}

ClusterSpec parse_cluster_spec(const Json& resource, const std::string& default_image) {
  ClusterSpec spec;
  const Json& metadata = child(resource, "metadata");
  spec.name = string_at(metadata, "name", "");
  spec.namespace_name = string_at(metadata, "namespace", "default");
  spec.restarted_at = string_at(child(metadata, "annotations"), k_restarted_at_annotation, "");
  const Json& body = child(resource, "spec");
  spec.instances = static_cast<int>(integer_at(body, "instances", 1));
  spec.image_name = string_at(body, "imageName", postgres_image_or_default(default_image));
  spec.major_version = image_major_version(spec.image_name).value_or(0);
  spec.postgres_uid = integer_at(body, "postgresUID", 26);
  spec.postgres_gid = integer_at(body, "postgresGID", 26);
  const Json& storage = child(body, "storage");
  spec.storage.size = string_at(storage, "size", "1Gi");
  spec.storage.storage_class = string_at(storage, "storageClass", "");
  spec.storage.retain_on_scale_down = storage.value("retainOnScaleDown", false);
  spec.resources = child(body, "resources");
  spec.primary_update_method = string_at(body, "primaryUpdateMethod", "switchover") == "restart"
                                   ? PrimaryUpdateMethod::restart
                                   : PrimaryUpdateMethod::switchover;
  spec.primary_update_strategy = string_at(body, "primaryUpdateStrategy", "unsupervised") == "supervised"
                                     ? PrimaryUpdateStrategy::supervised
                                     : PrimaryUpdateStrategy::unsupervised;
  spec.failover_delay = std::chrono::seconds(integer_at(body, "failoverDelay", 0));
  spec.min_sync_replicas = static_cast<int>(integer_at(body, "minSyncReplicas", 0));
  spec.max_sync_replicas = static_cast<int>(integer_at(body, "maxSyncReplicas", 0));
  const Json& bootstrap = child(body, "bootstrap");
  spec.database = string_at(child(bootstrap, "initdb"), "database", "app");
  spec.owner = string_at(child(bootstrap, "initdb"), "owner", "app");
  spec.recovery_backup = string_at(child(bootstrap, "recovery"), "backup", "");
  spec.recovery_target_time = string_at(child(bootstrap, "recovery"), "targetTime", "");
  spec.recovery_target_lsn = string_at(child(bootstrap, "recovery"), "targetLSN", "");
  spec.wal_archive_backup = string_at(child(body, "walArchive"), "backup", "");
  spec.final_backup = string_at(child(body, "finalBackup"), "backup", "");
  spec.scheduling = pod_scheduling(body);
  spec.postgresql = postgres_configuration(body);
  spec.managed = managed_objects(body);
  spec.monitoring = monitoring_spec(body);
  spec.certificates = certificates_spec(body);
  return spec;
}

bool uses_default_image(const Json& resource) {
  return string_at(child(resource, "spec"), "imageName", "").empty();
}

std::optional<schema::Issue> default_image_issue(const Json& resource, const std::string& default_image) {
  if (!uses_default_image(resource) || default_image.empty() || image_major_version(default_image))
    return std::nullopt;
  return schema::Issue{
      "/spec", "spec.imageName",
      fmt::format("not set, and the site default {} (opctl.yaml spec.clusterDefaults.imageName "
                  "or --default-postgres-image) has no tag that starts with the PostgreSQL "
                  "major version, e.g. registry.example/postgresql:15-0.1.0",
                  default_image)};
}

std::optional<schema::Issue> default_image_advice(const Json& resource, const std::string& default_image) {
  if (!uses_default_image(resource) || !default_image.empty()) return std::nullopt;
  return schema::Issue{"/spec", "spec.imageName",
                       fmt::format("not set, and no site default is: the instances run {}, which no public "
                                   "registry serves; {}",
                                   k_default_image, build_postgres_image_advice())};
}

std::optional<int> image_major_version(const std::string& image) {
  std::string reference = image.substr(0, image.find('@'));
  auto colon = reference.rfind(':');
  auto slash = reference.rfind('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return std::nullopt;
  std::string tag = reference.substr(colon + 1);
  std::size_t digits = 0;
  while (digits < tag.size() && digits < 4 && std::isdigit(static_cast<unsigned char>(tag[digits])) != 0)
    ++digits;
  if (digits == 0 || (digits < tag.size() && std::isdigit(static_cast<unsigned char>(tag[digits])) != 0))
    return std::nullopt;
  int major = std::stoi(tag.substr(0, digits));
  if (major < 10) return std::nullopt;
  return major;
}

std::optional<long double> quantity_bytes(const std::string& quantity) {
  std::smatch match;
  if (!std::regex_match(quantity, match, k_quantity)) return std::nullopt;
  std::string suffix = match[2].str();
  std::string number = quantity.substr(0, quantity.size() - suffix.size());
  long double scale = 1.0L;
  for (const auto& unit : k_units)
    if (suffix == unit.suffix) scale = unit.bytes;
  return std::stold(number) * scale;
}

}  // namespace opctl::kinds::cluster
