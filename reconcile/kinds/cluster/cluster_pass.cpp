#include "kinds/cluster/cluster_pass.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kinds/cluster/backup_contract.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_secrets.hpp"
#include "kinds/conditions.hpp"

namespace opctl::kinds::cluster {
namespace {

using model::Json;

std::string postgres_image(const Json& pod) {
  for (const auto& container : pod.value("/spec/containers"_json_pointer, Json::array()))
    if (container.value("name", "") == "postgres") return container.value("image", "");
  return "";
}

}  // namespace

ClusterPass::ClusterPass(const ClusterSpec& spec, const Observed& observed, Context& context)
    : spec_(spec),
      observed_(observed),
      context_(context),
      now_(context.clock.wall_now()),
      view_(observe_cluster(spec.name, observed.children)),
      status_(ClusterStatus::from_json(observed.parent.value("status", Json::object()))) {}

ReconcileResult ClusterPass::run() {
  status_.latest_generated_node = std::max(status_.latest_generated_node, view_.highest_serial);
  if (status_.data_image.empty()) {
    // Which PostgreSQL the data belongs to: what the instances run, or the spec on a new cluster.
    for (const auto& [serial, instance] : view_.instances)
      if (instance.pod != nullptr && status_.data_image.empty())
        status_.data_image = postgres_image(*instance.pod);
    if (status_.data_image.empty() || !image_major_version(status_.data_image))
      status_.data_image = spec_.image_name;
    status_.data_major = image_major_version(status_.data_image).value_or(spec_.major_version);
  }
  if (observed_.finalizing) {
    finalize();
  } else {
    issue_certificates();
    reconcile_running();
    report_image_pulls();
    record_configuration();
    record_managed();
  }

  ReconcileResult result;
  result.finalizers = plan_.finalizers;
  result.keep_unlisted = !plan_.emit_children;
  result.requeue_after = plan_.requeue;
  result.children = plan_.emit_children ? children() : plan_.jobs;
  result.deletions = plan_.deletions;
  tell_instance_errors();
  tell_missing_custom_queries();
  result.events = plan_.events;
  if (!plan_.degraded.empty() && (plan_.phase.empty() || plan_.phase == "Healthy")) {
    plan_.phase = "Degraded";
    plan_.phase_reason = plan_.degraded_message;
  }
  status_.instances = static_cast<int>(view_.instances.size());
  status_.ready_instances = 0;
  status_.instance_names.clear();
  for (const auto& [serial, instance] : view_.instances) {
    status_.instance_names.push_back(instance.name);
    if (instance.ready()) ++status_.ready_instances;
  }
  status_.instance_states = instance_states();
  status_.wal_archive = wal_archive_status();
  status_.phase = plan_.phase;
  status_.phase_reason = plan_.phase_reason;
  result.status = status_.to_json();
  result.conditions = conditions();
  return result;
}

void ClusterPass::issue_certificates() {
  auto find_secret = [&](const std::string& name) -> const Json* {
    auto found = view_.secrets.find(name);
    return found == view_.secrets.end() ? nullptr : found->second;
  };
  auto related_secret = [&](const std::string& name) -> const Json* {
    for (const auto& object : observed_.related)
      if (object.value("kind", "") == "Secret" && object["metadata"].value("name", "") == name)
        return &object;
    return nullptr;
  };
  TlsObserved observed;
  observed.ca = find_secret(ca_secret(spec_.name));
  observed.server = find_secret(server_secret(spec_.name));
  for (const auto& user : spec_.certificates.client_certificates)
    if (const Json* live = find_secret(client_secret(spec_.name, user)))
      observed.clients[client_secret(spec_.name, user)] = live;
  if (!spec_.certificates.server_tls_secret.empty()) {
    observed.user_server = related_secret(spec_.certificates.server_tls_secret);
    observed.user_ca = related_secret(spec_.certificates.server_ca_secret);
  }
  observed.renew_request = annotation_of(observed_.parent, k_renew_certificates_annotation);
  observed.now = now_;
  tls_ = tls_secrets(spec_, observed);
  plan_.events.insert(plan_.events.end(), tls_.events.begin(), tls_.events.end());
}

void ClusterPass::reconcile_running() {
  if (!tls_.problem.empty()) degrade(tls_.problem_reason, tls_.problem);
  plan_.finalizers = {k_final_backup_finalizer};
  if (BackupProblem problem; !spec_.wal_archive_backup.empty() && !wal_archive(problem))
    degrade(problem.reason, problem.message + "; the instances run without WAL archiving until it exists");
  record_failed_pods();
  read_stop_annotations();
  if (bootstrap() || major_upgrade() || hibernate() || primary_fenced() || wake_up() || !manage_primary())
    return;
  if (recreate_failed_pods() || scale_down() || wait_for_instances() || scale_up() || rolling_update() ||
      promote_request() || restart_instance_request())
    return;
  report_settled();
}

std::string ClusterPass::effective_image() const {
  // Until a major upgrade has run (or when it was refused), Pods keep the image the data belongs to.
  return spec_.major_version == status_.data_major ? spec_.image_name : status_.data_image;
}

PodTemplate ClusterPass::desired_template() const {
  BackupProblem problem;  // reported by reconcile_running()
  return pod_template(spec_, effective_image(), wal_archive(problem));
}

Json ClusterPass::wal_archive_status() const {
  if (spec_.wal_archive_backup.empty()) return nullptr;
  Json out = {{"backup", spec_.wal_archive_backup}};
  const Instance* primary = view_.find(status_.current_primary);
  if (primary == nullptr || primary->pod == nullptr) return out;
  Json report = Json::parse(annotation_of(*primary->pod, k_replication_annotation), nullptr, false);
  if (!report.is_object() || !report.contains("archiver") || !report["archiver"].is_object()) return out;
  for (const auto& [key, value] : report["archiver"].items())
    if (!(value.is_string() && value.get<std::string>().empty())) out[key] = value;
  return out;
}

std::optional<WalArchive> ClusterPass::wal_archive(BackupProblem& problem) const {
  if (spec_.wal_archive_backup.empty()) return std::nullopt;
  const Json* backup = backup_for(spec_.wal_archive_backup, "spec.walArchive", problem);
  if (backup == nullptr) return std::nullopt;
  if (auto store = backup_object_store(*backup)) return WalArchive{"", Json(), std::move(store)};
  return WalArchive{wal_archive_directory(spec_.wal_archive_backup), *backup_target_volume(*backup),
                    std::nullopt};
}

std::vector<ReplicaReport> ClusterPass::replica_reports(const std::string& except) const {
  std::vector<ReplicaReport> reports;
  for (const auto& [serial, instance] : view_.instances) {
    if (instance.name == except) continue;
    reports.push_back(instance.report(now_));
    // Its PostgreSQL is stopped on purpose: never a candidate, whatever it last reported.
    if (fenced_.fences(instance.name)) {
      reports.back().ready = false;
      reports.back().unpromotable = "it is fenced (opctl.io/fenced-instances)";
    }
  }
  return reports;
}

std::optional<std::string> ClusterPass::pending_promote_request() const {
  std::string request = annotation_of(observed_.parent, k_promote_annotation);
  if (request.empty() || request == status_.last_promote_request) return std::nullopt;
  return request;
}

const Json* ClusterPass::backup_for(const std::string& name, const std::string& purpose,
                                    BackupProblem& problem) const {
  const Json* backup = find_backup(observed_.related, name);
  if (backup == nullptr) {
    problem = {"BackupNotFound", fmt::format("Backup {} ({}) does not exist in namespace {}", name, purpose,
                                             spec_.namespace_name)};
    return nullptr;
  }
  if (backup_object_store(*backup)) {
    return backup;
  }
  if (!backup_target_volume(*backup)) {
    problem = {"BackupTargetUnknown",
               fmt::format("Backup {} ({}) names no target volume (spec.target.pvc or spec.target.volume)",
                           name, purpose)};
    return nullptr;
  }
  return backup;
}

void ClusterPass::progress(std::string phase, std::string reason, std::string message) {
  plan_.phase = std::move(phase);
  plan_.progressing = std::move(reason);
  plan_.phase_reason = std::move(message);
}

void ClusterPass::degrade(std::string reason, std::string message) {
  plan_.degraded = std::move(reason);
  plan_.degraded_message = std::move(message);
}

void ClusterPass::block(std::string phase, std::string reason, std::string message) {
  plan_.phase = std::move(phase);
  plan_.phase_reason = message;
  degrade(std::move(reason), std::move(message));
}

void ClusterPass::requeue(std::chrono::seconds after) {
  if (!plan_.requeue || after < *plan_.requeue) plan_.requeue = after;
}

std::vector<Json> ClusterPass::children() const {
  std::vector<Json> out = {build_primary_lease(spec_)};
  // An identity per instance with a volume or a Pod, and for the one this pass adds.
  std::vector<std::string> identities;
  for (const auto& [serial, instance] : view_.instances)
    identities.push_back(instance.name);
  if (plan_.new_instance) identities.push_back(instance_name(spec_.name, *plan_.new_instance));
  for (const auto& instance : identities)
    for (auto& object : build_instance_rbac(spec_, instance))
      out.push_back(std::move(object));
  auto live_secret = [&](const std::string& name) {
    auto found = view_.secrets.find(name);
    return found == view_.secrets.end() ? nullptr : found->second;
  };
  const std::string& ca = tls_.ca_certificate;
  out.push_back(app_secret_object(spec_, live_secret(app_secret(spec_.name)), context_.random, ca));
  out.push_back(
      superuser_secret_object(spec_, live_secret(superuser_secret(spec_.name)), context_.random, ca));
  out.push_back(
      replication_secret_object(spec_, live_secret(replication_secret(spec_.name)), context_.random, ca));
  // While the Cluster is deleted no certificate is issued: the TLS Secrets stay as they are.
  if (observed_.finalizing)
    for (const auto& [name, live] : view_.secrets)
      if (name != app_secret(spec_.name) && name != superuser_secret(spec_.name) &&
          name != replication_secret(spec_.name))
        out.push_back(carry_over_secret(spec_, *live));
  out.insert(out.end(), tls_.secrets.begin(), tls_.secrets.end());
  for (auto& service : build_services(spec_))
    out.push_back(std::move(service));
  for (auto& budget : build_disruption_budgets(spec_))
    out.push_back(std::move(budget));

  PodTemplate pod_template = desired_template();
  // The role label -rw selects: the primary Lease's holder (its own manager
  // labels it the same way), or before anyone holds it the instance the pass bootstraps.
  std::string labelled = view_.lease_holder().empty() ? plan_.primary : view_.lease_holder();
  auto role = [&](const std::string& instance) {
    return instance == labelled ? k_role_primary : k_role_replica;
  };
  for (const auto& [serial, instance] : view_.instances) {
    bool removing = plan_.remove.count(serial) > 0;
    bool detaching = plan_.detach.count(serial) > 0;
    if (instance.volume_usable() && !removing) out.push_back(carry_over_pvc(spec_, *instance.pvc, detaching));
    if (plan_.stop_all || removing || detaching || plan_.stop.count(serial) > 0) continue;
    if (instance.has_live_pod())
      out.push_back(carry_over_pod(spec_, *instance.pod, role(instance.name)));
    else if (instance.pod == nullptr && instance.volume_usable() && plan_.hold.count(serial) == 0)
      out.push_back(build_pod(spec_, pod_template, instance.name, role(instance.name)));
  }
  for (const Json* volume : view_.detached_volumes)
    out.push_back(carry_over_pvc(spec_, *volume, true));
  if (plan_.new_instance) {
    std::string name = instance_name(spec_.name, *plan_.new_instance);
    out.push_back(build_pvc(spec_, name));
    if (plan_.new_instance_pod && !plan_.stop_all)
      out.push_back(build_pod(spec_, pod_template, name, role(name)));
  }
  out.insert(out.end(), plan_.jobs.begin(), plan_.jobs.end());
  return out;
}

Json ClusterPass::instance_states() const {
  std::optional<Lsn> primary_lsn;
  if (const Instance* primary = view_.find(status_.current_primary);
      primary != nullptr && primary->pod != nullptr)
    primary_lsn = Lsn::parse(annotation_of(*primary->pod, k_current_lsn_annotation));
  Json states = Json::array();
  for (const auto& [serial, instance] : view_.instances) {
    if (instance.pod == nullptr) continue;
    const Json& pod = *instance.pod;
    Json state = {{"name", instance.name}, {"ready", instance.ready()}};
    auto put = [&](const char* key, const char* annotation) {
      if (std::string value = annotation_of(pod, annotation); !value.empty()) state[key] = value;
    };
    put("role", k_instance_role_annotation);
    put("timeline", k_timeline_annotation);
    put("currentLsn", k_current_lsn_annotation);
    put("receivedLsn", k_received_lsn_annotation);
    put("replayLsn", k_replay_lsn_annotation);
    put("error", k_instance_error_annotation);
    if (std::string streaming = annotation_of(pod, k_streaming_annotation); !streaming.empty())
      state["streaming"] = streaming == "true";
    auto replayed = Lsn::parse(annotation_of(pod, k_replay_lsn_annotation));
    if (primary_lsn && replayed && instance.name != status_.current_primary)
      state["lagBytes"] =
          primary_lsn->value() > replayed->value() ? primary_lsn->value() - replayed->value() : 0;
    states.push_back(std::move(state));
  }
  return states;
}

std::string ClusterPass::instance_errors() const {
  std::vector<std::string> errors;
  for (const auto& [serial, instance] : view_.instances)
    if (instance.has_live_pod())
      if (std::string error = annotation_of(*instance.pod, k_instance_error_annotation); !error.empty())
        errors.push_back(instance.name + ": " + error);
  return fmt::format("{}", fmt::join(errors, "; "));
}

void ClusterPass::tell_instance_errors() {
  // Once per new message, not on every pass: the condition holds it meanwhile.
  const Json* live = find_condition(observed_.parent, "InstanceErrors");
  std::string errors = instance_errors();
  if (!errors.empty() && (live == nullptr || live->value("message", "") != errors))
    plan_.events.push_back({"Warning", "InstanceReportsError", errors});
}

std::vector<Condition> ClusterPass::conditions() const {
  bool ready = plan_.phase == "Healthy" && plan_.degraded.empty();
  bool hibernated = plan_.phase == "Hibernated";
  // What the instance managers report they cannot do (a Secret they refuse, an
  // initdb they refuse, a clone that fails), by instance; it does not fail a
  // pass by itself: the phase says whether the Cluster serves.
  std::string errors = instance_errors();
  std::string missing = missing_custom_queries(spec_.monitoring, spec_.namespace_name, observed_.related);
  return {
      {"InstanceErrors", !errors.empty(), errors.empty() ? "None" : "InstanceReportsError", errors},
      {"Ready", ready, ready ? "ClusterHealthy" : plan_.phase, plan_.phase_reason},
      {"Progressing", !plan_.progressing.empty(), plan_.progressing.empty() ? "Idle" : plan_.progressing,
       plan_.progressing.empty() ? "" : plan_.phase_reason},
      {"Degraded", !plan_.degraded.empty(), plan_.degraded.empty() ? "AsExpected" : plan_.degraded,
       plan_.degraded_message},
      // CloudNativePG's cnpg.io/hibernation condition: True only once every Pod is gone.
      {"Hibernated", hibernated,
       hibernated ? "Hibernated" : (plan_.phase == "Hibernating" ? "Hibernating" : "NotHibernated"),
       hibernated || plan_.phase == "Hibernating" ? plan_.phase_reason : ""},
      {"Fenced", fenced_.any(), fenced_.any() ? "InstancesFenced" : "NotFenced", fenced_message()},
      // The exporters run without what is missing; it does not fail a pass.
      {"CustomQueriesMissing", !missing.empty(), missing.empty() ? "None" : "ConfigMapKeyMissing", missing},
  };
}

void ClusterPass::tell_missing_custom_queries() {
  const Json* live = find_condition(observed_.parent, "CustomQueriesMissing");
  std::string missing = missing_custom_queries(spec_.monitoring, spec_.namespace_name, observed_.related);
  if (!missing.empty() && (live == nullptr || live->value("message", "") != missing))
    plan_.events.push_back({"Warning", "CustomQueriesMissing", missing});
}

}  // namespace opctl::kinds::cluster
