#include "kinds/backup/backup_job.hpp"

#include "kinds/cluster/cluster_annotations.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/kind_reconciler.hpp"
#include "kinds/postgres_image.hpp"

namespace opctl::kinds::backup {
namespace {

using model::Json;

Json secret_env(const std::string& name, const std::string& secret, const std::string& key) {
  return {{"name", name}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

Json env_of(const JobInput& input) {
  const BackupSpec& spec = input.spec;
  // pg_basebackup needs only a replication connection: the streaming_replica
  // role, which the instances' pg_hba.conf admits for replication. pg_dump
  // reads every database, which takes the superuser.
  std::string account = spec.cluster + (spec.method == "pg_basebackup" ? "-replication" : "-superuser");
  Json env = Json::array({
      {{"name", "PGHOST"}, {"value", spec.cluster + "-rw"}},
      {{"name", "PGPORT"}, {"value", "5432"}},
      {{"name", "PGDATABASE"}, {"value", "postgres"}},
      {{"name", "PGAPPNAME"}, {"value", "opctl-backup"}},
      {{"name", "PGCONNECT_TIMEOUT"}, {"value", "10"}},
      secret_env("PGUSER", account, "username"),
      secret_env("PGPASSWORD", account, "password"),
      {{"name", "CLUSTER_NAME"}, {"value", spec.cluster}},
      {{"name", "BACKUP_NAME"}, {"value", input.backup_name}},
      {{"name", "BACKUP_DIR"}, {"value", "/backups/" + input.backup_name}},
      {{"name", "BACKUP_METHOD"}, {"value", spec.method}},
  });
  if (spec.keep) env.push_back({{"name", "BACKUP_KEEP"}, {"value", std::to_string(*spec.keep)}});
  if (spec.max_age)
    env.push_back(
        {{"name", "BACKUP_MAX_AGE_MINUTES"}, {"value", std::to_string(spec.max_age->count() / 60)}});
  return env;
}

Json volume_of(const BackupTarget& target) {
  Json volume =
      target.pvc.empty() ? target.volume : Json{{"persistentVolumeClaim", {{"claimName", target.pvc}}}};
  volume["name"] = "backups";
  return volume;
}

Json labels_of(const JobInput& input, const std::string& trigger) {
  return {
      {k_backup_label, input.backup_name}, {k_trigger_label, trigger}, {k_owner_uid_label, input.backup_uid}};
}

// A live Cluster's spec; an empty object when there is none to read.
const Json& cluster_spec(const Json* cluster) {
  static const Json empty = Json::object();
  if (cluster == nullptr || !cluster->contains("spec") || !(*cluster)["spec"].is_object()) return empty;
  return (*cluster)["spec"];
}

}  // namespace

std::string cluster_image(const Json* cluster, const std::string& default_image) {
  const Json& spec = cluster_spec(cluster);
  if (spec.contains("imageName") && spec["imageName"].is_string() &&
      !spec["imageName"].get<std::string>().empty())
    return spec["imageName"].get<std::string>();
  return default_image;
}

RunAs cluster_run_as(const Json* cluster) {
  const Json& spec = cluster_spec(cluster);
  RunAs run_as;
  if (spec.contains("postgresUID") && spec["postgresUID"].is_number_integer())
    run_as.uid = spec["postgresUID"];
  if (spec.contains("postgresGID") && spec["postgresGID"].is_number_integer())
    run_as.gid = spec["postgresGID"];
  return run_as;
}

bool cluster_hibernated(const Json* cluster) {
  if (cluster == nullptr) return false;
  using namespace kinds::cluster;
  if (parse_hibernation(annotation_text(*cluster, k_hibernation_annotation)).value) return true;
  Json::json_pointer at("/status/hibernated");
  return cluster->contains(at) && (*cluster)[at].is_boolean() && (*cluster)[at].get<bool>();
}

std::string backup_script() {
  return R"script(set -eu
# Files readable by the group (fsGroup) only: a backup holds every password hash.
umask 027
stamp=$(date -u +%Y%m%dT%H%M%SZ)
dir="$BACKUP_DIR/$stamp"
# Hidden while it is written: the restore and the retention only see */<stamp>Z.
partial="$BACKUP_DIR/.$stamp.partial"
mkdir -p "$BACKUP_DIR"
# Not -p: two Jobs started in the same second must not write into one directory.
mkdir "$partial"
log="$BACKUP_DIR/.$stamp.log"
# A failed run leaves nothing behind; a finished one was renamed away.
trap 'rm -rf "$partial" "$log"' EXIT
# A field of a manifest.json (one line of JSON, no nested objects): a string's value or a number.
field() { sed -n "s|.*\"$1\":\"\{0,1\}\([^\",}]*\).*|\1|p" "$2"; }
number() { n=$(field "$1" "$2"); echo "${n:-null}"; }
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
server_version=$(psql --no-psqlrc --tuples-only --no-align --command='SHOW server_version_num')
major=$((server_version / 10000))
timeline=null
start_lsn=
end_lsn=
start_wal=
case "$BACKUP_METHOD" in
  pg_basebackup)
    if ! pg_basebackup --pgdata="$partial" --format=tar --gzip --wal-method=stream --checkpoint=fast \
        --verbose 2>"$log"; then
      cat "$log" >&2
      exit 1
    fi
    cat "$log" >&2
    start_lsn=$(sed -n 's|.*write-ahead log start point: \([0-9A-F]*/[0-9A-F]*\) on timeline.*|\1|p' "$log")
    timeline=$(sed -n 's|.*write-ahead log start point: .* on timeline \([0-9]*\).*|\1|p' "$log")
    end_lsn=$(sed -n 's|.*write-ahead log end point: \([0-9A-F]*/[0-9A-F]*\).*|\1|p' "$log")
    # The WAL file the backup starts in: restoring it needs the WAL archive from there on.
    start_wal=$(printf '%08X' "$timeline")$(psql --no-psqlrc --tuples-only --no-align \
      --command="SELECT pg_walfile_name('$start_lsn')" | cut -c9-)
    rm -f "$log" ;;
  pg_dump)
    start_lsn=$(psql --no-psqlrc --tuples-only --no-align --command='SELECT pg_current_wal_lsn()')
    timeline=$(psql --no-psqlrc --tuples-only --no-align --command='SELECT timeline_id FROM pg_control_checkpoint()')
    pg_dumpall --globals-only --file="$partial/globals.sql"
    psql --no-psqlrc --tuples-only --no-align \
      --command="SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate" >"$partial/.databases"
    while IFS= read -r db; do
      pg_dump --format=custom --file="$partial/$db.dump" --dbname="$db"
    done <"$partial/.databases"
    rm -f "$partial/.databases"
    end_lsn=$(psql --no-psqlrc --tuples-only --no-align --command='SELECT pg_current_wal_lsn()') ;;
  *) echo "unknown method $BACKUP_METHOD" >&2; exit 2 ;;
esac
(cd "$partial" && sha256sum -- *) >"$partial/.sums"
mv "$partial/.sums" "$partial/SHA256SUMS"
size=$(du -sb "$partial" | cut -f1)
printf '{"name":"%s","backup":"%s","cluster":"%s","method":"%s","pgMajor":%s,"timeline":%s,"startLsn":"%s","endLsn":"%s","startWalFile":"%s","startTime":"%s","endTime":"%s","sizeBytes":%s,"checksums":"SHA256SUMS"}\n' \
  "$stamp" "$BACKUP_NAME" "$CLUSTER_NAME" "$BACKUP_METHOD" "$major" "${timeline:-null}" "$start_lsn" "$end_lsn" "$start_wal" "$started" \
  "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$size" >"$partial/manifest.json"
mv "$partial" "$dir"
echo "backup written to $dir: $(cat "$dir/manifest.json")"
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
# The WAL archive (a Cluster's walArchive names this Backup): every restore starts from a base backup and replays the
# WAL from that backup's start on, so the segments before the oldest base backup left are of no use. Only when that
# backup's manifest names its first WAL file (a final backup's does not): otherwise nothing is deleted.
if [ -d "$BACKUP_DIR/wal" ]; then
  oldest_base=
  for artifact in $(ls -1d "$BACKUP_DIR"/*Z 2>/dev/null | sort); do
    if [ -f "$artifact/base.tar.gz" ]; then oldest_base=$artifact; break; fi
  done
  first_wal=
  if [ -n "$oldest_base" ]; then first_wal=$(field startWalFile "$oldest_base/manifest.json"); fi
  if [ -n "$first_wal" ]; then
    removed=$(pg_archivecleanup -n "$BACKUP_DIR/wal" "$first_wal" | wc -l)
    pg_archivecleanup "$BACKUP_DIR/wal" "$first_wal"
    echo "WAL archive: deleted $removed segments before $first_wal, where ${oldest_base##*/} (the oldest base backup) starts"
  else
    echo "WAL archive: nothing deleted (no base backup whose manifest names its first WAL file)"
  fi
fi
# The Pod's termination message, which the Backup's status shows: this artifact's manifest and the artifacts on the
# volume after retention, newest first, as many as fit in the 4096 bytes Kubernetes keeps (artifactCount: all).
listed=
count=0
for artifact in $(ls -1d "$BACKUP_DIR"/*Z 2>/dev/null | sort -r); do
  [ -f "$artifact/manifest.json" ] || continue
  count=$((count + 1))
  m="$artifact/manifest.json"
  entry=$(printf '{"name":"%s","method":"%s","pgMajor":%s,"endTime":"%s","sizeBytes":%s}' "$(field name "$m")" \
    "$(field method "$m")" "$(number pgMajor "$m")" "$(field endTime "$m")" "$(number sizeBytes "$m")")
  if [ $((${#listed} + ${#entry})) -lt 3200 ]; then listed="${listed:+$listed,}$entry"; fi
done
{ printf '{"artifact":%s,"artifacts":[%s],"artifactCount":%s}\n' "$(cat "$dir/manifest.json")" "$listed" "$count" \
    >/dev/termination-log; } 2>/dev/null || true
)script";
}

std::string store_service_account(const std::string& backup_name) {
  return store_backup_service_account(backup_name);
}

std::vector<Json> store_job_rbac(const JobInput& input) {
  // The Job reads the Cluster's Pods (the primary's answer) and nothing else: no Secret (the store's keys
  // come through secretKeyRef, which the kubelet resolves), no write.
  std::string name = store_service_account(input.backup_name);
  Json labels = {{k_backup_label, input.backup_name}};
  Json metadata = {{"name", name}, {"namespace", input.namespace_name}, {"labels", labels}};
  return {
      {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", metadata}},
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "Role"},
       {"metadata", metadata},
       {"rules", Json::array({{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list"}}}})}},
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "RoleBinding"},
       {"metadata", metadata},
       {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", name}}},
       {"subjects",
        Json::array({{{"kind", "ServiceAccount"}, {"name", name}, {"namespace", input.namespace_name}}})}}};
}

namespace {

// A Backup to an object store: the Job's Pod asks the Cluster's primary, which runs barman-cloud-backup where
// PGDATA is (store_backups.hpp), and then applies the retention to the store (store_backup_job.hpp).
Json store_job_spec(const JobInput& input, const ObjectStore& store) {
  Json pod =
      store_backup_pod_template(store, {input.backup_name, input.spec.cluster, input.image, input.run_as.uid,
                                        input.run_as.gid, input.spec.keep, input.spec.max_age});
  pod["metadata"]["labels"][k_backup_label] = input.backup_name;
  pod["metadata"]["labels"][k_owner_uid_label] = input.backup_uid;
  // No retry: a second backup for a failed one waits for the next schedule, as a failure stays visible.
  return {{"backoffLimit", 0}, {"template", std::move(pod)}};
}

}  // namespace

Json job_spec(const JobInput& input) {
  if (input.spec.target.object_store) return store_job_spec(input, *input.spec.target.object_store);
  Json container = {{"name", "backup"},
                    {"image", input.image},
                    {"command", {"/bin/sh", "-c", backup_script()}},
                    {"env", env_of(input)},
                    {"volumeMounts", Json::array({{{"name", "backups"}, {"mountPath", "/backups"}}})}};
  Json security = {{"runAsUser", input.run_as.uid},
                   {"runAsGroup", input.run_as.gid},
                   {"fsGroup", input.run_as.gid},
                   {"runAsNonRoot", input.run_as.uid != 0}};
  return {{"backoffLimit", 1},
          {"template",
           // The owner-uid label makes the Pods children the Backup reads (their termination messages).
           {{"metadata",
             {{"labels", {{k_backup_label, input.backup_name}, {k_owner_uid_label, input.backup_uid}}}}},
            {"spec",
             {{"restartPolicy", "Never"},
              {"securityContext", std::move(security)},
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
            {"jobTemplate",
             {{"metadata", {{"labels", labels_of(input, "schedule")}}}, {"spec", job_spec(input)}}}}}};
}

Json backup_job(const JobInput& input, const std::string& name, const std::string& trigger) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata",
           {{"name", name}, {"namespace", input.namespace_name}, {"labels", labels_of(input, trigger)}}},
          {"spec", job_spec(input)}};
}

}  // namespace opctl::kinds::backup
