#include "kinds/cluster/cluster_jobs.hpp"

#include "kinds/cluster/backup_contract.hpp"
#include "kinds/cluster/cluster_children.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/kind_reconciler.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

// From an object store: `opctl instance fetch-backup` chooses the base backup (the newest completed one, or
// the newest that ended before the target) and fetches it with barman-cloud-restore, and the archive is
// replayed (barman-cloud-wal-restore) to the target, or to its end without one (a base backup in the store
// holds no WAL of its own), then the server promotes and stops: the instance starts from a finished recovery.
constexpr const char* k_store_restore_script = R"sh(set -eu
marker="$DATA_MOUNT/.opctl-restored"
if [ -f "$marker" ]; then echo "already restored from $(cat "$marker")"; exit 0; fi
# A database there is refused, unless an earlier attempt of this restore left it (it failed half-way).
restoring="$DATA_MOUNT/.opctl-restoring"
if [ -e "$PGDATA/PG_VERSION" ] && [ ! -f "$restoring" ]; then
  echo "refusing to restore: $PGDATA already holds a database" >&2
  exit 1
fi
touch "$restoring"
rm -rf "$PGDATA"
mkdir -p "$PGDATA"
chmod 0700 "$PGDATA"
backup_id=$(opctl instance fetch-backup)
rm -f "$PGDATA/postmaster.pid"
# barman-cloud-backup copies the server's configuration files into the backup: the instance manager's
# postgresql.conf lands in PGDATA, where it would include itself and name the source's TLS files. Those lines go;
# the new instance writes its own configuration around what is left.
if grep -q '^# Written by opctl instance' "$PGDATA/postgresql.conf" 2>/dev/null; then
  sed -i '/^include_if_exists /d; /^ssl/d' "$PGDATA/postgresql.conf"
fi
if [ -n "$TARGET_TIME" ]; then
  set -- -c "recovery_target_time=$(echo "$TARGET_TIME" | sed 's/T/ /; s/Z$/+00/')" -c recovery_target_action=promote \
    -c recovery_target_inclusive=on
elif [ -n "$TARGET_LSN" ]; then
  set -- -c "recovery_target_lsn=$TARGET_LSN" -c recovery_target_action=promote -c recovery_target_inclusive=on
else
  set --
fi
touch "$PGDATA/recovery.signal"
echo "local all all trust" >/tmp/recovery_hba.conf
echo "replaying the archive of $SOURCE_CLUSTER up to ${TARGET_TIME:-${TARGET_LSN:-its end}}"
postgres -D "$PGDATA" -c listen_addresses= -c unix_socket_directories=/tmp -c port=5432 \
  -c hba_file=/tmp/recovery_hba.conf -c shared_buffers=64MB -c archive_mode=off -c hot_standby=off -c ssl=off \
  -c "max_wal_senders=$REPLICATION_LIMIT" -c "max_replication_slots=$REPLICATION_LIMIT" \
  -c "restore_command=$RESTORE_COMMAND" "$@" &
postmaster=$!
until [ "$(psql -h /tmp -p 5432 -U postgres -d postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]; do
  if ! kill -0 "$postmaster" 2>/dev/null; then
    echo "PostgreSQL stopped before the end of recovery (is the archive of $SOURCE_CLUSTER complete?)" >&2
    exit 1
  fi
  sleep 1
done
pg_ctl -D "$PGDATA" -m fast -w -t 300 stop
echo "$BACKUP_NAME $backup_id" >"$marker"
rm -f "$restoring"
echo "restored base backup $backup_id and replayed the archive; promoted"
)sh";

constexpr const char* k_restore_script = R"sh(set -eu
marker="$DATA_MOUNT/.opctl-restored"
if [ -f "$marker" ]; then echo "already restored from $(cat "$marker")"; exit 0; fi
if [ -e "$PGDATA/PG_VERSION" ]; then echo "refusing to restore: $PGDATA already holds a database" >&2; exit 1; fi
# Artifact directories are UTC timestamps (20261129T030000Z): the last in name order is the newest.
if [ -z "$TARGET_TIME$TARGET_LSN" ]; then
  artifact=$(ls -1d "/backups/$BACKUP_NAME"/*Z 2>/dev/null | sort | tail -n 1 || true)
  if [ -z "$artifact" ]; then echo "Backup $BACKUP_NAME has no artifact under /backups/$BACKUP_NAME" >&2; exit 1; fi
else
  # Point in time: the newest physical artifact (base.tar.gz) that ended before the target.
  lsn_value() { echo $(( (0x${1%/*} << 32) + 0x${1#*/} )); }
  artifact=
  for candidate in $(ls -1d "/backups/$BACKUP_NAME"/*Z 2>/dev/null | sort -r); do
    manifest="$candidate/manifest.json"
    if [ ! -f "$candidate/base.tar.gz" ] || [ ! -f "$manifest" ]; then continue; fi
    if [ -n "$TARGET_TIME" ]; then
      ended=$(sed -n 's/.*"endTime":"\([^"]*\)".*/\1/p' "$manifest")
      if [ -n "$ended" ] && printf '%s\n%s\n' "$ended" "$TARGET_TIME" | LC_ALL=C sort -c 2>/dev/null; then
        artifact=$candidate
        break
      fi
    else
      ended=$(sed -n 's/.*"endLsn":"\([0-9A-Fa-f]*\/[0-9A-Fa-f]*\)".*/\1/p' "$manifest")
      if [ -n "$ended" ] && [ "$(lsn_value "$ended")" -le "$(lsn_value "$TARGET_LSN")" ]; then
        artifact=$candidate
        break
      fi
    fi
  done
  if [ -z "$artifact" ]; then
    echo "Backup $BACKUP_NAME has no pg_basebackup artifact that ended before $TARGET_TIME$TARGET_LSN" >&2
    exit 1
  fi
fi
# An artifact whose files do not match its checksums is never restored.
if [ -f "$artifact/SHA256SUMS" ]; then
  if ! (cd "$artifact" && sha256sum --check --strict --quiet SHA256SUMS); then
    echo "$artifact does not match its SHA256SUMS: refusing to restore it" >&2
    exit 1
  fi
fi
echo "restoring $artifact into $PGDATA"
rm -rf "$PGDATA"
mkdir -p "$PGDATA"
chmod 0700 "$PGDATA"
if [ -f "$artifact/base.tar.gz" ] || [ -f "$artifact/base.tar" ]; then
  for file in "$artifact/base.tar.gz" "$artifact/base.tar"; do
    if [ -f "$file" ]; then tar -xf "$file" -C "$PGDATA"; fi
  done
  for file in "$artifact/pg_wal.tar.gz" "$artifact/pg_wal.tar"; do
    if [ -f "$file" ]; then mkdir -p "$PGDATA/pg_wal"; tar -xf "$file" -C "$PGDATA/pg_wal"; fi
  done
  rm -f "$PGDATA/postmaster.pid"
  if [ -n "$TARGET_TIME$TARGET_LSN" ]; then
    # Replay the Backup's WAL archive up to the target, promote there (a new
    # timeline), and stop: the instance then starts from a finished recovery.
    if [ -n "$TARGET_TIME" ]; then
      set -- -c "recovery_target_time=$(echo "$TARGET_TIME" | sed 's/T/ /; s/Z$/+00/')"
    else
      set -- -c "recovery_target_lsn=$TARGET_LSN"
    fi
    touch "$PGDATA/recovery.signal"
    echo "local all all trust" >/tmp/recovery_hba.conf
    echo "replaying $WAL_DIR up to $TARGET_TIME$TARGET_LSN"
    # hot_standby=off: a hot standby refuses WAL written with a higher max_connections (or the like, from
    # spec.postgresql.parameters) than its own; nothing connects before the promotion anyway.
    postgres -D "$PGDATA" -c listen_addresses= -c unix_socket_directories=/tmp -c port=5432 \
      -c hba_file=/tmp/recovery_hba.conf -c shared_buffers=64MB -c archive_mode=off -c hot_standby=off \
      -c "max_wal_senders=$REPLICATION_LIMIT" -c "max_replication_slots=$REPLICATION_LIMIT" \
      -c "restore_command=cp $WAL_DIR/%f %p" -c recovery_target_action=promote -c recovery_target_inclusive=on \
      "$@" &
    postmaster=$!
    # Done when the server is out of recovery: promoted at the target.
    until [ "$(psql -h /tmp -p 5432 -U postgres -d postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]; do
      if ! kill -0 "$postmaster" 2>/dev/null; then
        echo "PostgreSQL stopped before reaching $TARGET_TIME$TARGET_LSN (is the WAL archive $WAL_DIR complete?)" >&2
        exit 1
      fi
      sleep 1
    done
    pg_ctl -D "$PGDATA" -m fast -w -t 300 stop
    echo "recovered to $TARGET_TIME$TARGET_LSN and promoted"
  fi
elif ls "$artifact"/*.dump >/dev/null 2>&1; then
  initdb -D "$PGDATA" -U postgres --auth-local=trust --auth-host=scram-sha-256
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -k /tmp" start
  if [ -f "$artifact/globals.sql" ]; then psql -h /tmp -U postgres -d postgres -f "$artifact/globals.sql"; fi
  if [ -z "$(psql -h /tmp -U postgres -d postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$OPCTL_APP_USER'")" ]; then
    psql -h /tmp -U postgres -d postgres -v ON_ERROR_STOP=1 -c "CREATE ROLE \"$OPCTL_APP_USER\" LOGIN"
  fi
  for dump in "$artifact"/*.dump; do
    if [ "$(basename "$dump" .dump)" = postgres ]; then
      pg_restore -h /tmp -U postgres -d postgres --clean --if-exists "$dump"
    else
      pg_restore -h /tmp -U postgres -d postgres --create --exit-on-error "$dump"
    fi
  done
  pg_ctl -D "$PGDATA" -w stop
else
  echo "$artifact holds neither base.tar[.gz] (pg_basebackup) nor *.dump files (pg_dump)" >&2
  exit 1
fi
echo "$artifact" > "$marker"
echo "restored $artifact"
)sh";

// The entries, not the directories themselves: `cp -a dir/. dest` also sets
// the times of dest, the volume's mount point, which the Pod's user does not own.
constexpr const char* k_copy_old_binaries_script = R"sh(set -eu
cp -a "/usr/lib/postgresql/$OLD_MAJOR"/* /old/lib/
cp -a "/usr/share/postgresql/$OLD_MAJOR"/* /old/share/
)sh";

constexpr const char* k_major_upgrade_script = R"sh(set -eu
data="$DATA_MOUNT"
old_bin="/usr/lib/postgresql/$OLD_MAJOR/bin"
new_bin="/usr/lib/postgresql/$NEW_MAJOR/bin"
# A previous attempt may have stopped between the two renames at the end.
if [ ! -e "$data/pgdata" ] && [ -f "$data/pgdata-new/PG_VERSION" ]; then mv "$data/pgdata-new" "$data/pgdata"; fi
version=$(cat "$data/pgdata/PG_VERSION")
if [ "$version" = "$NEW_MAJOR" ]; then echo "already on PostgreSQL $NEW_MAJOR"; exit 0; fi
if [ "$version" != "$OLD_MAJOR" ]; then echo "the data directory is PostgreSQL $version, not $OLD_MAJOR" >&2; exit 1; fi
rm -rf "$data/pgdata-new"
if "$old_bin/pg_controldata" "$data/pgdata" | grep -Eq '^Data page checksum version:[[:space:]]*[1-9]'; then
  checksums=--data-checksums
elif [ "$NEW_MAJOR" -ge 18 ]; then
  checksums=--no-data-checksums
else
  checksums=
fi
# PostgreSQL 15.20 (Debian's 15.20-0+deb12u1) stamps every column it creates with an attribute option pg_attver
# whose values look like memory addresses. Its own pg_dump leaves the option out, but a newer major's pg_dump
# --binary-upgrade from before that release copies it, and that server refuses it ("unrecognized parameter"), so
# pg_upgrade fails while restoring the schemas. Columns created before 15.20 have no such option, so removing it
# (from user objects only, other options kept) leaves a state the old server supports; a failed upgrade below
# leaves the old directory usable as before.
server_log="$data/pg_attver-strip.log"
if ! "$old_bin/pg_ctl" -D "$data/pgdata" -w -t 120 -l "$server_log" \
    -o "-c listen_addresses='' -c unix_socket_directories=/tmp -p 50431" start; then
  cat "$server_log" >&2
  exit 1
fi
psql_old() { "$new_bin/psql" -X -q -v ON_ERROR_STOP=1 -h /tmp -p 50431 -U postgres "$@"; }
psql_old -d postgres -tAc "SELECT datname FROM pg_database WHERE datallowconn" >"$data/pg_attver-databases"
while IFS= read -r db; do
  removed=$(psql_old -d "$db" -tAc "WITH stripped AS (UPDATE pg_catalog.pg_attribute
    SET attoptions = NULLIF(ARRAY(SELECT o FROM unnest(attoptions) o WHERE o NOT LIKE 'pg\_attver=%'), '{}')
    WHERE attrelid >= 16384 AND EXISTS (SELECT 1 FROM unnest(attoptions) o WHERE o LIKE 'pg\_attver=%')
    RETURNING 1) SELECT count(*) FROM stripped")
  echo "database $db: pg_attver removed from $removed columns"
done <"$data/pg_attver-databases"
"$old_bin/pg_ctl" -D "$data/pgdata" -w -t 120 stop
rm -f "$server_log" "$data/pg_attver-databases"
# The encoding and locale opctl instance's initdb uses: pg_upgrade before PostgreSQL 16 refuses a template0 that differs.
"$new_bin/initdb" -D "$data/pgdata-new" -U postgres --encoding UTF8 --locale C $checksums
cd "$data"
# pg_upgrade names a log file on failure; its last lines go to the Job's log (kubectl logs), where they are read.
# Not pg_upgrade_utility.log (the restored roles, with their password hashes), and no line that mentions a password
# (a user mapping's options, in a schema dump).
if ! "$new_bin/pg_upgrade" --old-bindir "$old_bin" --new-bindir "$new_bin" \
  --old-datadir "$data/pgdata" --new-datadir "$data/pgdata-new" --username postgres --link; then
  for log in "$data"/pgdata-new/pg_upgrade_output.d/*/log/pg_upgrade_dump_*.log \
    "$data"/pgdata-new/pg_upgrade_output.d/*/log/pg_upgrade_server.log \
    "$data"/pgdata-new/pg_upgrade_output.d/*/*.txt; do
    if [ -s "$log" ]; then
      echo "== last lines of $log (lines naming a password left out)" >&2
      tail -n 25 "$log" | grep -v -i password >&2 || true
    fi
  done
  exit 1
fi
for conf in pg_hba.conf pg_ident.conf; do
  if [ -f "$data/pgdata/$conf" ]; then cp "$data/pgdata/$conf" "$data/pgdata-new/$conf"; fi
done
old_copy="$data/pgdata-$OLD_MAJOR-$(date -u +%Y%m%dT%H%M%SZ)"
mv "$data/pgdata" "$old_copy"
mv "$data/pgdata-new" "$data/pgdata"
echo "upgraded from PostgreSQL $OLD_MAJOR to $NEW_MAJOR; the old directory (hard links, never start it) is $old_copy"
)sh";

constexpr const char* k_final_backup_script = R"sh(set -eu
umask 027
if [ ! -f "$PGDATA/PG_VERSION" ]; then echo "$INSTANCE holds no database at $PGDATA" >&2; exit 1; fi
dest="/backups/$BACKUP_NAME/$STAMP"
partial="/backups/$BACKUP_NAME/.$STAMP.partial"
if [ -d "$dest" ]; then echo "already written: $dest"; exit 0; fi
rm -rf "$partial"
mkdir -p "$partial"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# The instances are stopped: a copy of the data directory is consistent, and
# restores like a pg_basebackup artifact (base.tar.gz).
tar -czf "$partial/base.tar.gz" -C "$PGDATA" --exclude=./postmaster.pid --exclude=./postmaster.opts .
(cd "$partial" && sha256sum -- *) >"$partial/.sums"
mv "$partial/.sums" "$partial/SHA256SUMS"
printf '{"name":"%s","backup":"%s","cluster":"%s","instance":"%s","method":"final","pgMajor":%s,"startTime":"%s","endTime":"%s","sizeBytes":%s,"checksums":"SHA256SUMS"}\n' \
  "$STAMP" "$BACKUP_NAME" "$CLUSTER_NAME" "$INSTANCE" "$(cat "$PGDATA/PG_VERSION")" "$started" \
  "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(du -sb "$partial" | cut -f1)" >"$partial/manifest.json"
mv "$partial" "$dest"
{ cat "$dest/manifest.json" >/dev/termination-log; } 2>/dev/null || true
echo "final backup written to $dest"
)sh";

Json job(const ClusterSpec& spec, const std::string& name, const char* purpose, Json pod_spec) {
  Json metadata = child_metadata(spec, name);
  metadata["labels"][k_job_label] = purpose;
  // A Job's template is immutable: created once, never updated.
  metadata["annotations"] = {{k_create_only_annotation, "true"}};
  pod_spec["restartPolicy"] = "Never";
  pod_spec["securityContext"] = pod_security_context(spec);
  // They mount an instance's volume: they must be allowed where the instances run (tainted or
  // selected nodes), and count against the same quotas.
  apply_node_placement(spec.scheduling, pod_spec);
  if (!spec.resources.empty())
    for (const char* list : {"initContainers", "containers"})
      if (pod_spec.contains(list))
        for (auto& container : pod_spec[list])
          container["resources"] = spec.resources;
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", metadata},
          {"spec",
           {{"backoffLimit", 2},
            {"template",
             {{"metadata", {{"labels", {{k_job_label, purpose}}}}}, {"spec", std::move(pod_spec)}}}}}};
}

Json script_container(const char* name, const std::string& image, const char* script, Json env, Json mounts) {
  return {{"name", name},
          {"image", image},
          {"command", {"/bin/sh", "-c", script}},
          {"env", std::move(env)},
          {"volumeMounts", std::move(mounts)}};
}

Json mount(const char* volume, const std::string& path, bool read_only = false) {
  Json out = {{"name", volume}, {"mountPath", path}};
  if (read_only) out["readOnly"] = true;
  return out;
}

Json named_volume(const char* name, const Json& source) {
  Json volume = source;
  volume["name"] = name;
  return volume;
}

}  // namespace

namespace {

Json build_store_restore_job(const ClusterSpec& spec, const RestoreJobOptions& options) {
  const ObjectStore& store = *options.store;
  std::string instance = instance_name(spec.name, options.serial);
  Json env = Json::array(
      {env_value("PGDATA", k_pgdata), env_value("DATA_MOUNT", k_data_mount),
       env_value("BACKUP_NAME", options.backup), env_value("SOURCE_CLUSTER", options.source_cluster),
       env_value("TARGET_TIME", spec.recovery_target_time), env_value("TARGET_LSN", spec.recovery_target_lsn),
       env_value("REPLICATION_LIMIT", std::to_string(k_replication_limit)),
       env_value("OPCTL_BACKUP_LIST", Json(backup_list_argv(store, options.source_cluster)).dump()),
       env_value("OPCTL_RESTORE_COMMAND", Json(store_restore_argv(store, options.source_cluster)).dump()),
       env_value("RESTORE_COMMAND", wal_restore_command(store, options.source_cluster))});
  for (const auto& variable : object_store_env(store))
    env.push_back(variable);
  Json mounts = Json::array({mount("pgdata", k_data_mount)});
  Json volumes = Json::array({pvc_volume("pgdata", instance)});
  if (auto ca = object_store_ca_mount(store)) mounts.push_back(*ca);
  if (auto ca = object_store_ca_volume(store)) volumes.push_back(*ca);
  Json pod_spec = {
      {"containers",
       Json::array({script_container("restore", spec.image_name, k_store_restore_script, env, mounts)})},
      {"volumes", std::move(volumes)}};
  return job(spec, restore_job(spec.name, options.serial), "restore", std::move(pod_spec));
}

}  // namespace

Json build_restore_job(const ClusterSpec& spec, const RestoreJobOptions& options) {
  if (options.store) return build_store_restore_job(spec, options);
  std::string instance = instance_name(spec.name, options.serial);
  Json env = Json::array(
      {env_value("PGDATA", k_pgdata),
       env_value("DATA_MOUNT", k_data_mount),
       env_value("BACKUP_NAME", options.backup),
       env_value("TARGET_TIME", spec.recovery_target_time),
       env_value("TARGET_LSN", spec.recovery_target_lsn),
       env_value("WAL_DIR", wal_archive_directory(options.backup)),
       // Recovery refuses lower values than the WAL was written with (opctl instance's).
       env_value("REPLICATION_LIMIT", std::to_string(k_replication_limit)),
       {{"name", "OPCTL_APP_USER"},
        {"valueFrom", {{"secretKeyRef", {{"name", app_secret(spec.name)}, {"key", "username"}}}}}}});
  Json mounts = Json::array({mount("pgdata", k_data_mount), mount("backups", k_backup_mount, true)});
  Json pod_spec = {
      {"containers",
       Json::array({script_container("restore", spec.image_name, k_restore_script, env, mounts)})},
      {"volumes",
       Json::array({pvc_volume("pgdata", instance), named_volume("backups", options.backup_volume)})}};
  return job(spec, restore_job(spec.name, options.serial), "restore", std::move(pod_spec));
}

Json build_major_upgrade_job(const ClusterSpec& spec, const MajorUpgradeStatus& upgrade) {
  std::string old_major = std::to_string(upgrade.from_major);
  std::string new_major = std::to_string(upgrade.to_major);
  Json copy = script_container(
      "copy-old-binaries", upgrade.from_image, k_copy_old_binaries_script,
      Json::array({env_value("OLD_MAJOR", old_major)}),
      Json::array({{{"name", "old-binaries"}, {"mountPath", "/old/lib"}, {"subPath", "lib"}},
                   {{"name", "old-binaries"}, {"mountPath", "/old/share"}, {"subPath", "share"}}}));
  Json env = Json::array({env_value("DATA_MOUNT", k_data_mount), env_value("OLD_MAJOR", old_major),
                          env_value("NEW_MAJOR", new_major)});
  Json mounts = Json::array(
      {mount("pgdata", k_data_mount),
       {{"name", "old-binaries"}, {"mountPath", "/usr/lib/postgresql/" + old_major}, {"subPath", "lib"}},
       {{"name", "old-binaries"},
        {"mountPath", "/usr/share/postgresql/" + old_major},
        {"subPath", "share"}}});
  Json pod_spec = {
      {"initContainers", Json::array({copy})},
      {"containers",
       Json::array({script_container("pg-upgrade", upgrade.to_image, k_major_upgrade_script, env, mounts)})},
      {"volumes", Json::array({pvc_volume("pgdata", upgrade.primary),
                               {{"name", "old-binaries"}, {"emptyDir", Json::object()}}})}};
  return job(spec, major_upgrade_job(spec.name, upgrade.to_major), "major-upgrade", std::move(pod_spec));
}

Json build_final_backup_job(const ClusterSpec& spec, const FinalBackupJobOptions& options) {
  Json env = Json::array({env_value("PGDATA", k_pgdata), env_value("BACKUP_NAME", options.backup),
                          env_value("STAMP", options.stamp), env_value("CLUSTER_NAME", spec.name),
                          env_value("INSTANCE", options.instance)});
  Json mounts = Json::array({mount("pgdata", k_data_mount, true), mount("backups", k_backup_mount)});
  Json pod_spec = {
      {"containers",
       Json::array({script_container("final-backup", options.image, k_final_backup_script, env, mounts)})},
      {"volumes", Json::array({pvc_volume("pgdata", options.instance, true),
                               named_volume("backups", options.backup_volume)})}};
  Json out = job(spec, final_backup_job(spec.name), "final-backup", std::move(pod_spec));
  out["metadata"]["labels"][k_backup_label] = options.backup;
  out["metadata"]["labels"]["opctl.io/backup-trigger"] = "final";
  return out;
}

Json build_final_store_backup_job(const ClusterSpec& spec, const ObjectStore& store,
                                  const std::string& backup, const std::string& image) {
  Json pod = store_backup_pod_template(store, {backup,
                                               spec.name,
                                               image,
                                               static_cast<int>(spec.postgres_uid),
                                               static_cast<int>(spec.postgres_gid),
                                               {},
                                               {}});
  Json out = job(spec, final_backup_job(spec.name), "final-backup", pod["spec"]);
  // One attempt: a failure keeps the Cluster, and says why (delete the Job to retry).
  out["spec"]["backoffLimit"] = 0;
  out["spec"]["template"]["metadata"]["labels"].update(pod["metadata"]["labels"]);
  out["metadata"]["labels"][k_backup_label] = backup;
  out["metadata"]["labels"]["opctl.io/backup-trigger"] = "final";
  return out;
}

}  // namespace opctl::kinds::cluster
