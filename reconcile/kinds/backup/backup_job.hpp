// The backup Job every trigger runs — the CronJob's template, the one-off
// Job of an unscheduled Backup, `opctl backup NAME --now`, and a Cluster's
// final backup — so they all back up the same way.
//
// The Job runs the Cluster's image (postgres:16 when unknown) with a shell
// script: pg_basebackup (tar, gzip, WAL streamed) or pg_dump (globals plus one
// custom-format dump per database) from <cluster>-rw into
// /backups/<backup>/<UTC timestamp>, written as <timestamp>.partial and
// renamed when complete. Credentials come from the <cluster>-superuser Secret
// through secretKeyRef, never inlined. After a successful backup the script
// applies the retention to the files: it keeps the newest `keep` timestamp
// directories, deletes those older than `maxAge`, and removes .partial
// directories older than an hour (left by failed runs).
#pragma once

#include <string>
#include <vector>

#include "kinds/backup/backup_spec.hpp"
#include "kinds/postgres_image.hpp"
#include "model/object.hpp"

namespace opctl::kinds::backup {

inline constexpr const char* k_backup_label = "opctl.io/backup";
// How a Job was started: schedule, once (an unscheduled Backup), manual (--now).
inline constexpr const char* k_trigger_label = "opctl.io/backup-trigger";
// At most this many successful Jobs when retention sets no `keep` (a backstop
// for the CronJob controller's own history limit).
inline constexpr int k_history_cap = 100;

// The user and group the Cluster's instances run as (spec.postgresUID/GID):
// the backup Job runs as them too, so both can read what the other wrote.
struct RunAs {
  int uid = 26;
  int gid = 26;
};

struct JobInput {
  std::string backup_name;
  std::string namespace_name;
  std::string backup_uid;
  BackupSpec spec;
  std::string image = k_default_postgres_image;
  RunAs run_as;
};

// The image of a live Cluster (spec.imageName), or `default_image` (the
// site default or k_default_postgres_image), which its instances run then.
std::string cluster_image(const model::Json* cluster, const std::string& default_image);
// The user and group of a live Cluster's instances, or the defaults.
RunAs cluster_run_as(const model::Json* cluster);
// The live Cluster hibernates (opctl.io/hibernation: "on", or it has not
// woken yet): it has no instance to back up, so no backup Job starts.
bool cluster_hibernated(const model::Json* cluster);

// The Job's spec (the CronJob's jobTemplate.spec).
model::Json job_spec(const JobInput& input);
// The CronJob of a scheduled Backup, named like the Backup.
model::Json cron_job(const JobInput& input);
// A Job running one backup now; `trigger` is once or manual.
model::Json backup_job(const JobInput& input, const std::string& name, const std::string& trigger);

// A Backup to an object store: its Job runs as <backup>-backup, which may only read Pods (the primary's
// answer); the ServiceAccount, its Role and RoleBinding.
std::string store_service_account(const std::string& backup_name);
std::vector<model::Json> store_job_rbac(const JobInput& input);

// The shell script the container runs (see the file comment).
std::string backup_script();

}  // namespace opctl::kinds::backup
