#include "kinds/backup/backup_spec.hpp"

#include "kinds/cron/cron_schedule.hpp"
#include "kinds/kind_time.hpp"
#include "kinds/object_store.hpp"

namespace opctl::kinds::backup {
namespace {

using model::Json;
using schema::Schema;

const char* k_dns_label = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
const char* k_dns_subdomain = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
// An S3 bucket name (3-63 lower-case letters, digits, dots, hyphens), then an optional path.
const char* k_s3_destination = "^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^ ]*)?$";

std::string check_cron(const Json& value) {
  try {
    cron::CronSchedule::parse(value.get<std::string>());
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

std::string check_zone(const Json& value) {
  try {
    cron::TimeZone::load(value.get<std::string>());
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

std::string check_age(const Json& value) {
  return parse_age(value.get<std::string>()) ? "" : "must be a duration such as 30d, 12h, 2w or 1d12h";
}

Schema secret_key_schema(const char* what) {
  return Schema::object()
      .describe(what)
      .field("name",
             Schema::string()
                 .pattern(k_dns_subdomain, "a Secret name")
                 .describe("A Secret in the Backup's namespace"),
             true)
      .field("key",
             Schema::string().pattern("^[-._a-zA-Z0-9]+$", "a Secret key").describe("The key in its data"),
             true);
}

Schema barman_options_schema(const char* what) {
  return Schema::object()
      .describe(what)
      .field("compression", Schema::string()
                                .enumerate({"gzip", "bzip2", "snappy"})
                                .describe("Compress before upload (default: none)"))
      .field("encryption", Schema::string()
                               .enumerate({"AES256", "aws:kms"})
                               .describe("Server-side encryption the store applies (default: the bucket's)"));
}

Schema object_store_schema() {
  return Schema::object()
      .describe(
          "An S3-compatible object store, written with Barman Cloud: base backups and the WAL archive under "
          "<destinationPath>/<cluster>/")
      .field("destinationPath",
             Schema::string()
                 .pattern(k_s3_destination, "s3://<bucket>[/<path>]")
                 .describe("s3://<bucket>[/<path>]; the bucket must exist"),
             true)
      .field("endpointURL", Schema::string()
                                .pattern("^https?://[^ /?#]+(/[^ ?#]*)?$", "an http:// or https:// URL")
                                .describe("The S3 endpoint (default: AWS's for the region)"))
      .field("region", Schema::string().describe("The region (AWS_DEFAULT_REGION)"))
      .field("endpointCA",
             secret_key_schema("A Secret key holding the PEM bundle that signs the endpoint's certificate"))
      .field("s3Credentials",
             Schema::object()
                 .describe("The access key, from a Secret; never copied into any object opctl writes")
                 .field("accessKeyId", secret_key_schema("The access key id"), true)
                 .field("secretAccessKey", secret_key_schema("The secret access key"), true),
             true)
      .field("data", barman_options_schema("Base backups (barman-cloud-backup)"))
      .field("wal", barman_options_schema("The WAL archive (barman-cloud-wal-archive)"));
}

}  // namespace

Schema spec_schema() {
  auto retention =
      Schema::object()
          .describe("Which successful backups to keep; older backup Jobs and their files are deleted")
          .field("keep", Schema::integer().minimum(1).describe("Keep the newest N successful backups"))
          .field("maxAge",
                 Schema::string().check(check_age).describe("Keep no backup older than this: 30d, 12h, 2w"));
  auto target =
      Schema::object()
          .describe(
              "Where backups are written: /backups/<backup name>/<timestamp> on a volume, or an object store")
          .field("pvc", Schema::string()
                            .pattern(k_dns_label, "a PersistentVolumeClaim name")
                            .describe("A PersistentVolumeClaim in the Backup's namespace"))
          .field("volume", Schema::free_form().describe("Any Pod volume source (nfs, hostPath, csi, ...)"))
          .field("objectStore", object_store_schema())
          .exactly_one_of({"pvc", "volume", "objectStore"});
  return Schema::object()
      .describe("A PostgreSQL backup of a Cluster: one now, or on a schedule")
      .field("cluster",
             Schema::string()
                 .pattern(k_dns_label, "a Cluster name")
                 .describe("The Cluster (same namespace) to back up"),
             true)
      .field("schedule",
             Schema::string()
                 .check(check_cron)
                 .describe(
                     "Cron schedule, 5 fields (minute hour day-of-month month day-of-week) or @daily style; "
                     "absent: one backup now"))
      .field("timeZone",
             Schema::string().check(check_zone).describe("IANA time zone of the schedule (default UTC)"))
      .field("suspend", Schema::boolean().default_value(false).describe("Stop scheduling new backups"))
      .field("method",
             Schema::string()
                 .enumerate({"pg_basebackup", "pg_dump"})
                 .default_value("pg_basebackup")
                 .describe("pg_basebackup (physical, whole cluster) or pg_dump (logical, every database)"))
      .field("retention", retention)
      .field("target", target, true);
}

Schema status_schema() {
  auto time = [](const char* text) { return Schema::string().format("date-time").describe(text); };
  return Schema::object()
      .field("observedGeneration", Schema::integer())
      .field("lastScheduleTime", time("When the last backup Job started"))
      .field("lastSuccessfulTime", time("When the last successful backup finished"))
      .field("nextScheduleTime", time("When the schedule fires next"))
      .field("lastArtifact",
             Schema::free_form().describe(
                 "manifest.json of the artifact the last successful backup wrote (name, method, pgMajor, "
                 "timeline, startLsn, endLsn, startTime, endTime, sizeBytes)"))
      .field("artifacts",
             Schema::array(Schema::object()
                               .field("name", Schema::string().describe("Directory under /backups/<backup>/"))
                               .field("method", Schema::string())
                               .field("pgMajor", Schema::integer())
                               .field("endTime", time("When the backup finished"))
                               .field("sizeBytes", Schema::integer()))
                 .describe("The artifacts on the backup volume after the last successful backup's retention, "
                           "newest first (cut short when more than fit in a termination message)"))
      .field("artifactCount", Schema::integer().describe(
                                  "How many artifacts were on the volume after the last successful backup"))
      .field("lastArchivedWal",
             Schema::string().describe("The last WAL segment the Cluster archived to this Backup's target "
                                       "(its spec.walArchive names this Backup)"))
      .field("lastArchivedTime", time("When it was archived"))
      .field("conditions", schema::conditions_schema());
}

Json backup_crd() {
  schema::CrdNames names{k_group, k_version, k_kind, "backups", "backup", {}, {"opctl"}};
  std::vector<schema::PrinterColumn> columns = {
      {"Cluster", "string", ".spec.cluster", "The Cluster backed up", 0},
      {"Schedule", "string", ".spec.schedule", "Cron schedule", 0},
      {"Suspend", "boolean", ".spec.suspend", "", 1},
      {"Last Success", "date", ".status.lastSuccessfulTime", "", 0},
      {"Artifacts", "integer", ".status.artifactCount", "Artifacts on the volume after the last backup", 0},
      {"Next", "string", ".status.nextScheduleTime", "", 1},
      {"Ready", "string", ".status.conditions[?(@.type==\"Ready\")].status", "", 0},
      {"Age", "date", ".metadata.creationTimestamp", "", 0},
  };
  return schema::custom_resource_definition(names, spec_schema(), status_schema(), columns);
}

std::vector<schema::Issue> check_spec(const Json& spec) {
  std::vector<schema::Issue> issues;
  if (spec.is_null()) return {{"/spec", "spec", "missing required field"}};
  static const Schema checked = spec_schema();  // built once, only read: its patterns compile to RE2 programs
  checked.validate(spec, "/spec", "spec", issues);
  // Barman Cloud takes physical backups only.
  if (spec.is_object() && spec.value("method", "") == "pg_dump" && read_object_store(spec))
    issues.push_back({"/spec/method", "spec.method",
                      "pg_dump cannot write to an object store (Barman Cloud takes physical backups): use "
                      "pg_basebackup, or a volume target"});
  return issues;
}

BackupSpec read_spec(const Json& spec) {
  BackupSpec result;
  result.cluster = spec.value("cluster", "");
  if (spec.contains("schedule") && spec["schedule"].is_string())
    result.schedule = spec["schedule"].get<std::string>();
  result.time_zone = spec.value("timeZone", "");
  result.suspend = spec.value("suspend", false);
  result.method = spec.value("method", "pg_basebackup");
  const Json& retention =
      spec.contains("retention") && spec["retention"].is_object() ? spec["retention"] : Json();
  if (retention.is_object()) {
    if (retention.contains("keep") && retention["keep"].is_number_integer())
      result.keep = retention["keep"].get<int>();
    if (retention.contains("maxAge") && retention["maxAge"].is_string())
      result.max_age = parse_age(retention["maxAge"].get<std::string>());
  }
  const Json& target = spec.value("target", Json::object());
  result.target.pvc = target.value("pvc", "");
  if (target.contains("volume") && target["volume"].is_object()) result.target.volume = target["volume"];
  result.target.object_store = read_object_store(spec);
  return result;
}

}  // namespace opctl::kinds::backup
