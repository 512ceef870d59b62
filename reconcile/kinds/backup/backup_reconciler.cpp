#include "kinds/backup/backup_reconciler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "kinds/backup/backup_artifacts.hpp"
#include "kinds/backup/backup_job.hpp"
#include "kinds/backup/backup_retention.hpp"
#include "kinds/backup/backup_spec.hpp"
#include "kinds/cron/cron_schedule.hpp"
#include "kinds/kind_time.hpp"

namespace opctl::kinds::backup {
namespace {

using model::Json;

// An unscheduled Backup's Job is checked again this often while it runs.
constexpr std::chrono::seconds k_running_requeue{5};

std::string meta(const Json& object, const char* field) {
  return object.contains("metadata") ? object["metadata"].value(field, "") : "";
}

bool controlled_by(const Json& object, const std::string& uid) {
  if (!object.contains("metadata")) return false;
  for (const auto& reference : object["metadata"].value("ownerReferences", Json::array()))
    if (reference.value("controller", false) && reference.value("uid", "") == uid) return true;
  return false;
}

std::optional<TimePoint> status_time(const Json& status, const char* field) {
  if (!status.is_object() || !status.contains(field) || !status[field].is_string()) return std::nullopt;
  return parse_time(status[field].get<std::string>());
}

void keep_later(std::optional<TimePoint>& current, std::optional<TimePoint> candidate) {
  if (candidate && *candidate != TimePoint{} && (!current || *candidate > *current)) current = candidate;
}

// The status fields a backup Pod's termination message fills in (backup_artifacts.hpp).
constexpr std::array<const char*, 3> k_artifact_fields = {"lastArtifact", "artifacts", "artifactCount"};

void carry(const Json& previous, const char* field, Json& status) {
  if (previous.is_object() && previous.contains(field)) status[field] = previous[field];
}

// Status fields carried over when the reconciler cannot compute new ones.
Json carried_status(const Json& previous) {
  Json status = Json::object();
  for (const char* field : {"lastScheduleTime", "lastSuccessfulTime"})
    carry(previous, field, status);
  for (const char* field : k_artifact_fields)
    carry(previous, field, status);
  return status;
}

ReconcileResult degraded(const Json& previous, const std::string& reason, const std::string& message) {
  ReconcileResult result;
  result.keep_unlisted = true;
  result.status = carried_status(previous);
  result.conditions = {{"Ready", false, reason, message},
                       {"Progressing", false, reason, "nothing is done until this is fixed"},
                       {"Degraded", true, reason, message}};
  return result;
}

struct Observation {
  const Json* cron_job = nullptr;
  std::vector<BackupRun> runs;
  // What the newest succeeded backup Pod reported (its termination message), if any.
  std::optional<ArtifactReport> report;
};

Observation observe(const Observed& observed, const std::string& name, const std::string& uid) {
  Observation seen;
  for (const auto& child : observed.children) {
    std::string kind = child.value("kind", "");
    if (kind == "CronJob" && meta(child, "name") == name && controlled_by(child, uid)) seen.cron_job = &child;
    if (kind == "Job" && !child["metadata"].contains("deletionTimestamp")) seen.runs.push_back(run_of(child));
    if (kind == "Pod") {
      auto report = artifact_report(child);
      if (report && (!seen.report || report->finished > seen.report->finished))
        seen.report = std::move(report);
    }
  }
  return seen;
}

class Pass {
 public:
  Pass(const Observed& observed, Context& context, std::string default_image)
      : observed_(observed), now_(context.clock.wall_now()), default_image_(std::move(default_image)) {}

  ReconcileResult run() {
    const Json& parent = observed_.parent;
    previous_ = parent.value("status", Json::object());
    auto issues = check_spec(parent.value("spec", Json()));
    if (!issues.empty()) {
      std::vector<std::string> lines;
      for (const auto& issue : issues)
        lines.push_back(issue.field + ": " + issue.message);
      return degraded(previous_, "InvalidSpec", fmt::format("{}", fmt::join(lines, "; ")));
    }
    spec_ = read_spec(parent["spec"]);
    input_ = {
        meta(parent, "name"), meta(parent, "namespace"), meta(parent, "uid"), spec_, default_image_, RunAs{}};
    const Json* cluster = find_cluster();
    if (cluster == nullptr)
      return degraded(
          previous_, "ClusterNotFound",
          fmt::format("Cluster \"{}\" not found in namespace {}", spec_.cluster, input_.namespace_name));
    // A base backup in a store is taken by the primary, which archives its WAL there: without that archive
    // it could not finish (pg_backup_stop waits for the archiver) nor restore anything.
    // A suspended one is kept for what the store holds (restores), whatever its Cluster archives to now.
    bool would_back_up = spec_.schedule ? !spec_.suspend : !previous_.contains("lastSuccessfulTime");
    if (spec_.target.object_store && would_back_up && wal_archive_backup_of(*cluster) != input_.backup_name)
      return degraded(previous_, "WalArchiveRequired",
                      fmt::format("Cluster {} must archive its WAL to this Backup's object store (its "
                                  "spec.walArchive.backup: {}): a base backup there needs its WAL beside it",
                                  spec_.cluster, input_.backup_name));
    cluster_ = cluster;
    input_.image = cluster_image(cluster, default_image_);
    input_.run_as = cluster_run_as(cluster);
    hibernated_ = cluster_hibernated(cluster);
    seen_ = observe(observed_, input_.backup_name, input_.backup_uid);
    apply_retention();
    desire_children();
    write_status();
    return std::move(result_);
  }

 private:
  static std::string wal_archive_backup_of(const Json& cluster) {
    Json::json_pointer at("/spec/walArchive/backup");
    return cluster.contains(at) && cluster[at].is_string() ? cluster[at].get<std::string>() : std::string();
  }

  const Json* find_cluster() const {
    for (const auto& object : observed_.related)
      if (object.value("kind", "") == k_cluster_kind.kind && meta(object, "name") == spec_.cluster)
        return &object;
    return nullptr;
  }

  void apply_retention() {
    for (const auto& deletion : plan_retention(seen_.runs, {spec_.keep, spec_.max_age}, now_)) {
      Json job = *deletion.job;
      job["metadata"]["annotations"][k_deletion_reason_annotation] = deletion.reason;
      result_.deletions.push_back(std::move(job));
      deleted_.insert(deletion.name);
    }
    std::erase_if(seen_.runs, [&](const BackupRun& run) { return deleted_.contains(run.name); });
  }

  const BackupRun* once_run() const {
    for (const auto& run : seen_.runs)
      if (run.name == once_name()) return &run;
    return nullptr;
  }

  std::string once_name() const { return input_.backup_name + "-once"; }

  void desire_children() {
    if (spec_.target.object_store)
      for (auto& object : store_job_rbac(input_))
        result_.children.push_back(std::move(object));
    if (spec_.schedule) {
      Json cron = cron_job(input_);
      // Suspended while the Cluster hibernates, as the spec's own suspend: nothing to back up.
      if (hibernated_) cron["spec"]["suspend"] = true;
      result_.children.push_back(std::move(cron));
    }
    // The one-off Job is created once: again only if it is gone and never succeeded (and not while the
    // Cluster hibernates: once it wakes).
    bool succeeded_before = previous_.contains("lastSuccessfulTime");
    bool wanted = !spec_.schedule && !succeeded_before && !deleted_.contains(once_name()) && !hibernated_;
    if (once_run() != nullptr || wanted) {
      Json job = backup_job(input_, once_name(), "once");
      job["metadata"]["annotations"][k_create_only_annotation] = "true";
      result_.children.push_back(std::move(job));
      created_once_ = once_run() == nullptr;
    }
  }

  void write_status() {
    std::optional<TimePoint> last_schedule = status_time(previous_, "lastScheduleTime");
    std::optional<TimePoint> last_success = status_time(previous_, "lastSuccessfulTime");
    if (seen_.cron_job != nullptr) {
      const Json& cron_status = seen_.cron_job->value("status", Json::object());
      keep_later(last_schedule, status_time(cron_status, "lastScheduleTime"));
      keep_later(last_success, status_time(cron_status, "lastSuccessfulTime"));
    }
    for (const auto& run : seen_.runs) {
      keep_later(last_schedule, run.started);
      if (run.state == RunState::succeeded) keep_later(last_success, run.finished);
    }
    Json& status = result_.status;
    // What the Cluster archiving here last reported (its status.walArchive), when it archives here.
    Json::json_pointer archive("/status/walArchive");
    if (cluster_ != nullptr && cluster_->contains(archive) && (*cluster_)[archive].is_object() &&
        (*cluster_)[archive].value("backup", "") == input_.backup_name) {
      const Json& archiver = (*cluster_)[archive];
      if (archiver.contains("lastArchivedWal")) status["lastArchivedWal"] = archiver["lastArchivedWal"];
      if (archiver.contains("lastArchivedTime")) status["lastArchivedTime"] = archiver["lastArchivedTime"];
    }
    if (last_schedule) status["lastScheduleTime"] = format_time(*last_schedule);
    if (last_success) status["lastSuccessfulTime"] = format_time(*last_success);
    write_artifacts(status);
    if (spec_.schedule && !spec_.suspend && !hibernated_) {
      auto zone = cron::TimeZone::load(spec_.time_zone);
      auto schedule = cron::CronSchedule::parse(*spec_.schedule);
      auto now = std::chrono::floor<std::chrono::seconds>(now_);
      auto next = schedule.next_after(now, zone);
      // "@every" counts from the last run, as the CronJob controller does.
      if (schedule.interval() && last_schedule && *last_schedule <= now_) {
        auto since = now - std::chrono::floor<std::chrono::seconds>(*last_schedule);
        next = now + (*schedule.interval() - since % *schedule.interval());
      }
      if (next) status["nextScheduleTime"] = format_time(*next);
    }
    result_.conditions = {ready(last_success), progressing(), degraded_condition()};
  }

  // The artifacts as the newest succeeded backup Pod saw them; once its Pod
  // is gone (the Job deleted by retention or history), what was last written.
  void write_artifacts(Json& status) const {
    if (!seen_.report) {
      for (const char* field : k_artifact_fields)
        carry(previous_, field, status);
      return;
    }
    status["lastArtifact"] = seen_.report->artifact;
    status["artifacts"] = seen_.report->artifacts;
    status["artifactCount"] = seen_.report->count;
  }

  Condition ready(const std::optional<TimePoint>& last_success) {
    std::string hibernating = fmt::format(
        "the Cluster {} hibernates (opctl.io/hibernation): no backup starts until it wakes", spec_.cluster);
    if (spec_.schedule && hibernated_ && !spec_.suspend)
      return {"Ready", true, "ClusterHibernated", hibernating};
    if (!spec_.schedule && hibernated_ && once_run() == nullptr && !last_success)
      return {"Ready", false, "ClusterHibernated", hibernating};
    if (spec_.schedule) {
      if (spec_.suspend)
        return {"Ready", true, "Suspended", "the schedule is suspended: no new backups start"};
      std::string next = result_.status.value("nextScheduleTime", "never");
      return {"Ready", true, "Scheduled",
              fmt::format("CronJob {} is in step; next backup at {}", input_.backup_name, next)};
    }
    const BackupRun* once = once_run();
    if (once == nullptr && last_success)
      return {"Ready", true, "Completed", "the backup completed at " + format_time(*last_success)};
    if (once == nullptr || once->state == RunState::running) {
      result_.requeue_after = k_running_requeue;
      return {"Ready", false, created_once_ ? "Pending" : "Running",
              fmt::format("backup Job {} {}", once_name(), created_once_ ? "created" : "is running")};
    }
    if (once->state == RunState::succeeded)
      return {"Ready", true, "Completed", "the backup completed at " + format_time(once->finished)};
    return {"Ready", false, "BackupFailed", fmt::format("backup Job {} failed", once->name)};
  }

  Condition progressing() const {
    for (const auto& run : seen_.runs)
      if (run.state == RunState::running)
        return {"Progressing", true, "Running", "backup Job " + run.name + " is running"};
    if (created_once_) return {"Progressing", true, "Running", "backup Job " + once_name() + " created"};
    return {"Progressing", false, "Idle", "no backup is running"};
  }

  Condition degraded_condition() const {
    const BackupRun* latest = nullptr;
    for (const auto& run : seen_.runs)
      if (run.state != RunState::running && (latest == nullptr || run.finished > latest->finished))
        latest = &run;
    if (latest != nullptr && latest->state == RunState::failed)
      return {
          "Degraded", true, "BackupFailed",
          fmt::format("the last backup, Job {}, failed at {}", latest->name, format_time(latest->finished))};
    return {"Degraded", false, "AsExpected", ""};
  }

  const Observed& observed_;
  TimePoint now_;
  std::string default_image_;      // of a Cluster without spec.imageName, resolved
  bool hibernated_ = false;        // the Cluster hibernates: no backup Job starts
  const Json* cluster_ = nullptr;  // the live Cluster, once found
  Json previous_;
  BackupSpec spec_;
  JobInput input_;
  Observation seen_;
  std::set<std::string> deleted_;
  bool created_once_ = false;
  ReconcileResult result_;
};

Problem problem_at(const model::Object& object, const std::string& pointer, const std::string& field,
                   const std::string& message) {
  return {object.location().file, object.line_of(pointer), field, message};
}

std::string human(std::chrono::seconds span) {
  auto minutes = std::chrono::duration_cast<std::chrono::minutes>(span);
  if (minutes.count() <= 0) return format_age(span);
  return format_age(minutes);
}

}  // namespace

model::GroupVersionKind BackupReconciler::kind() const {
  return {k_group, k_version, k_kind};
}

std::vector<model::GroupVersionKind> BackupReconciler::child_kinds() const {
  // Pods: the backup Pods' termination messages list the artifacts. The RBAC: an object store's Job reads
  // the Cluster's Pods.
  return {{"batch", "v1", "CronJob"},
          {"batch", "v1", "Job"},
          {"", "v1", "Pod"},
          {"", "v1", "ServiceAccount"},
          {"rbac.authorization.k8s.io", "v1", "Role"},
          {"rbac.authorization.k8s.io", "v1", "RoleBinding"}};
}

std::vector<RelatedRef> BackupReconciler::related(const Json& parent) const {
  std::string cluster =
      parent.contains("spec") && parent["spec"].is_object() ? parent["spec"].value("cluster", "") : "";
  if (cluster.empty()) return {};
  return {{k_cluster_kind, meta(parent, "namespace"), cluster}};
}

ReconcileResult BackupReconciler::reconcile(const Observed& observed, Context& context) {
  return Pass(observed, context, postgres_image_or_default(default_image_)).run();
}

std::vector<Problem> BackupReconciler::validate(const model::Object& object) const {
  std::vector<Problem> problems;
  if (object.name().size() > k_max_name_length)
    problems.push_back(problem_at(object, "/metadata/name", "metadata.name",
                                  fmt::format("a Backup name has at most {} characters (its Jobs are named "
                                              "<name>-now-<timestamp>, at most 63)",
                                              k_max_name_length)));
  for (const auto& issue : check_spec(object.body().value("spec", Json())))
    problems.push_back(problem_at(object, issue.pointer, issue.field, issue.message));
  return problems;
}

KindReconciler::SetFindings BackupReconciler::check_in_set(const model::Object& object,
                                                           const std::vector<model::Object>& desired) const {
  SetFindings findings;
  const Json& spec = object.body().value("spec", Json::object());
  if (!spec.is_object()) return findings;
  std::string cluster = spec.value("cluster", "");
  std::vector<std::string> clusters_here;
  bool any_cluster = false, found = false;
  for (const auto& other : desired) {
    if (other.gvk().group != k_cluster_kind.group || other.kind() != k_cluster_kind.kind) continue;
    any_cluster = true;
    bool same_namespace = other.namespace_name().empty() || object.namespace_name().empty() ||
                          other.namespace_name() == object.namespace_name();
    if (!same_namespace) continue;
    clusters_here.push_back(other.name());
    if (other.name() == cluster) found = true;
  }
  std::string where = object.namespace_name().empty() ? "" : " in namespace " + object.namespace_name();
  if (!cluster.empty() && any_cluster && !found)
    findings.errors.push_back(problem_at(
        object, "/spec/cluster", "spec.cluster",
        fmt::format("Cluster \"{}\" is not in the manifests{} (Clusters there: {})", cluster, where,
                    clusters_here.empty() ? std::string("none")
                                          : fmt::format("{}", fmt::join(clusters_here, ", ")))));
  if (!cluster.empty() && !any_cluster)
    findings.warnings.push_back(
        problem_at(object, "/spec/cluster", "spec.cluster",
                   fmt::format("Cluster \"{}\" is not in the manifests: it must exist{} when the Backup runs",
                               cluster, where)));
  if (spec.contains("schedule") && spec["schedule"].is_string() && check_spec(spec).empty()) {
    BackupSpec read = read_spec(spec);
    for (const auto& advice : retention_advice(*read.schedule, read.time_zone, read.keep, read.max_age))
      findings.warnings.push_back(problem_at(object, "/spec/schedule", "spec.schedule", advice));
    if (auto advice = time_zone_advice(*read.schedule, read.time_zone))
      findings.warnings.push_back(problem_at(object, "/spec/timeZone", "spec.timeZone", *advice));
  }
  return findings;
}

Json BackupReconciler::custom_resource_definition() const {
  return backup_crd();
}

std::unique_ptr<KindReconciler> make_backup_reconciler(const std::string& default_image) {
  return std::make_unique<BackupReconciler>(default_image);
}

std::optional<std::string> time_zone_advice(const std::string& schedule, const std::string& time_zone) {
  if (time_zone.empty() || cron::CronSchedule::parse(schedule).interval()) return std::nullopt;
  cron::TimeZone zone = cron::TimeZone::load(time_zone);
  // A fixed window, so the advice does not change from day to day.
  cron::Seconds from{std::chrono::sys_days{std::chrono::year{2025} / 1 / 1}};
  auto shift = zone.irregular_shift(from, from + std::chrono::days(2 * 366));
  if (!shift) return std::nullopt;
  return fmt::format(
      "{} shifts its clock by other than a whole hour, off the hour or at midnight (e.g. at {}); the CronJob "
      "controller's cron library assumes whole-hour shifts on the hour away from midnight and can start a "
      "backup at another time around such a shift (nextScheduleTime shows the correct one); UTC, or a zone "
      "without such shifts, avoids it",
      time_zone, format_time(*shift));
}

std::vector<std::string> retention_advice(const std::string& schedule, const std::string& time_zone,
                                          std::optional<int> keep,
                                          std::optional<std::chrono::seconds> max_age) {
  if (!keep && !max_age)
    return {"no retention: every backup is kept (its files forever, its Jobs up to " +
            std::to_string(k_history_cap) + "); set retention.keep and/or retention.maxAge"};
  cron::CronSchedule parsed = cron::CronSchedule::parse(schedule);
  cron::TimeZone zone = cron::TimeZone::load(time_zone);
  // A fixed Monday, so the advice does not change from day to day.
  cron::Seconds start{std::chrono::sys_days{std::chrono::year{2025} / 1 / 6}};
  std::size_t wanted = static_cast<std::size_t>(std::max(keep.value_or(0), k_history_cap)) + 1;
  std::vector<cron::Seconds> fires;
  for (auto at = parsed.next_after(start - std::chrono::seconds(1), zone); at && fires.size() < wanted;
       at = parsed.next_after(*at, zone))
    fires.push_back(*at);
  std::vector<std::string> advice;
  if (keep && fires.size() > static_cast<std::size_t>(*keep)) {
    auto held =
        std::chrono::duration_cast<std::chrono::seconds>(fires[static_cast<std::size_t>(*keep)] - fires[0]);
    if (max_age && held < *max_age)
      advice.push_back(
          fmt::format("\"{}\" fires more often than the retention can hold: keep: {} deletes each backup "
                      "after about {}, long before maxAge {}",
                      schedule, *keep, human(held), format_age(*max_age)));
    if (!max_age && held < std::chrono::hours(24))
      advice.push_back(
          fmt::format("\"{}\" fires more often than the retention can hold: keep: {} holds only the "
                      "last {} of backups (for daily backups use \"0 0 * * *\")",
                      schedule, *keep, human(held)));
  }
  if (!keep && max_age) {
    auto within =
        std::count_if(fires.begin(), fires.end(), [&](auto at) { return at - fires.front() < *max_age; });
    if (within > k_history_cap)
      advice.push_back(
          fmt::format("\"{}\" fires more than {} times within maxAge {}, but only the newest {} backup "
                      "Jobs are kept; set retention.keep",
                      schedule, k_history_cap, format_age(*max_age), k_history_cap));
  }
  return advice;
}

}  // namespace opctl::kinds::backup
