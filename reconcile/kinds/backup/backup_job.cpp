#include "kinds/backup/backup_job.hpp"

#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds::backup {
namespace {

using model::Json;

Json secret_env(const std::string& name, const std::string& secret, const std::string& key) {
  return {{"name", name}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

Json env_of(const JobInput& input) {
  const BackupSpec& spec = input.spec;
  std::string superuser = spec.cluster + "-superuser";
  Json env = Json::array({
      {{"name", "PGHOST"}, {"value", spec.cluster + "-rw"}},
      {{"name", "PGPORT"}, {"value", "5432"}},
      secret_env("PGUSER", superuser, "username"),
      secret_env("PGPASSWORD", superuser, "password"),
      {{"name", "BACKUP_DIR"}, {"value", "/backups/" + input.backup_name}},
      {{"name", "BACKUP_METHOD"}, {"value", spec.method}},
  });
  if (spec.keep) env.push_back({{"name", "BACKUP_KEEP"}, {"value", std::to_string(*spec.keep)}});
  if (spec.max_age)
    env.push_back({{"name", "BACKUP_MAX_AGE_MINUTES"}, {"value", std::to_string(spec.max_age->count() / 60)}});
  return env;
}

Json volume_of(const BackupTarget& target) {
  Json volume = target.pvc.empty() ? target.volume : Json{{"persistentVolumeClaim", {{"claimName", target.pvc}}}};
  volume["name"] = "backups";
  return volume;
}

Json labels_of(const JobInput& input, const std::string& trigger) {
  return {{k_backup_label, input.backup_name}, {k_trigger_label, trigger}, {k_owner_uid_label, input.backup_uid}};
}

}  // namespace

std::string cluster_image(const Json* cluster) {
  if (cluster == nullptr || !cluster->contains("spec") || !(*cluster)["spec"].is_object()) return k_default_image;
  const Json& spec = (*cluster)["spec"];
  if (spec.contains("imageName") && spec["imageName"].is_string() && !spec["imageName"].get<std::string>().empty())
    return spec["imageName"].get<std::string>();
  return k_default_image;
}

std::string backup_script() {
  return R"script(set -eu
stamp=$(date -u +%Y%m%dT%H%M%SZ)
dir="$BACKUP_DIR/$stamp"
mkdir -p "$dir.partial"
case "$BACKUP_METHOD" in
  pg_basebackup)
    pg_basebackup --pgdata="$dir.partial" --format=tar --gzip --wal-method=stream --checkpoint=fast --verbose ;;
  pg_dump)
    pg_dumpall --globals-only --file="$dir.partial/globals.sql"
    for db in $(psql --dbname=postgres --tuples-only --no-align \
        --command="SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate"); do
      pg_dump --format=custom --file="$dir.partial/$db.dump" --dbname="$db"
    done ;;
  *) echo "unknown method $BACKUP_METHOD" >&2; exit 2 ;;
esac
mv "$dir.partial" "$dir"
echo "backup written to $dir"
if [ -n "${BACKUP_KEEP:-}" ]; then
  ls -1d "$BACKUP_DIR"/*Z 2>/dev/null | sort -r | tail -n +$((BACKUP_KEEP + 1)) | while read -r old; do
    rm -rf "$old" && echo "deleted $old (beyond keep: $BACKUP_KEEP)"
  done
fi
if [ -n "${BACKUP_MAX_AGE_MINUTES:-}" ]; then
  find "$BACKUP_DIR" -mindepth 1 -maxdepth 1 -type d -name '*Z' -mmin +"$BACKUP_MAX_AGE_MINUTES" \
    -exec echo "deleting (older than maxAge):" {} \; -exec rm -rf {} +
fi
find "$BACKUP_DIR" -mindepth 1 -maxdepth 1 -type d -name '*.partial' -mmin +60 -exec rm -rf {} +
)script";
}

Json job_spec(const JobInput& input) {
  Json container = {{"name", "backup"},
                    {"image", input.image},
                    {"command", {"/bin/sh", "-c", backup_script()}},
                    {"env", env_of(input)},
                    {"volumeMounts", Json::array({{{"name", "backups"}, {"mountPath", "/backups"}}})}};
  return {{"backoffLimit", 1},
          {"template",
           {{"metadata", {{"labels", {{k_backup_label, input.backup_name}}}}},
            {"spec",
             {{"restartPolicy", "Never"},
              {"containers", Json::array({container})},
              {"volumes", Json::array({volume_of(input.spec.target)})}}}}}};
}

Json cron_job(const JobInput& input) {
  const BackupSpec& spec = input.spec;
  return {{"apiVersion", "batch/v1"},
          {"kind", "CronJob"},
          {"metadata", {{"name", input.backup_name}, {"labels", {{k_backup_label, input.backup_name}}}}},
          {"spec",
           {{"schedule", spec.schedule.value_or("")},
            // Always explicit: without it the controller manager's own zone applies.
            {"timeZone", spec.time_zone.empty() ? "Etc/UTC" : spec.time_zone},
            {"suspend", spec.suspend},
            {"concurrencyPolicy", "Forbid"},
            {"startingDeadlineSeconds", 300},
            {"successfulJobsHistoryLimit", spec.keep.value_or(k_history_cap)},
            {"failedJobsHistoryLimit", 3},
            {"jobTemplate", {{"metadata", {{"labels", labels_of(input, "schedule")}}}, {"spec", job_spec(input)}}}}}};
}

Json backup_job(const JobInput& input, const std::string& name, const std::string& trigger) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}, {"namespace", input.namespace_name}, {"labels", labels_of(input, trigger)}}},
          {"spec", job_spec(input)}};
}

}  // namespace opctl::kinds::backup
