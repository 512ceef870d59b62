// One reconcile pass over a Cluster: from the observed children and the
// state kept in status, decide the one next step (bootstrap, restore, major
// upgrade, failover, switchover, failed Pods, scale, rolling update) and the
// children that express it. Level-based: nothing is remembered between
// passes but status.
//
// The steps live in their own files: cluster_bootstrap.cpp (new cluster,
// restore), major_upgrade.cpp, cluster_primary.cpp (failover, switchover,
// restart), failed_pods.cpp, scaling.cpp, rolling_update.cpp, final_backup.cpp,
// hibernation.cpp and fencing.cpp (the opctl.io/hibernation and
// opctl.io/fenced-instances annotations), and the PodDisruptionBudgets in
// cluster_children.cpp.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kinds/cluster/cluster_annotations.hpp"
#include "kinds/cluster/cluster_certificates.hpp"
#include "kinds/cluster/cluster_children.hpp"
#include "kinds/cluster/cluster_spec.hpp"
#include "kinds/cluster/cluster_status.hpp"
#include "kinds/cluster/cluster_view.hpp"
#include "kinds/kind_reconciler.hpp"
#include "kinds/kind_time.hpp"

namespace opctl::kinds::cluster {

// What this pass decided; turned into children, status and conditions at the end.
struct Plan {
  std::set<int> stop;    // serials whose Pod is deleted (recreated on a later pass, same volume)
  std::set<int> remove;  // serials whose Pod and volume are deleted
  std::set<int> detach;  // serials whose Pod is deleted and volume kept, detached
  std::set<int> hold;    // serials whose missing Pod is not created yet
  bool stop_all = false;
  std::optional<int> new_instance;
  bool new_instance_pod = true;
  std::string primary;  // the instance labelled role=primary; empty: none
  std::vector<model::Json> jobs;

  std::string phase;
  std::string phase_reason;
  std::string progressing;  // reason; empty: nothing in progress
  std::string degraded;     // reason; empty: nothing wrong
  std::string degraded_message;
  std::optional<std::chrono::seconds> requeue;

  bool emit_children = true;  // false: list only `jobs` and delete nothing
  std::vector<std::string> finalizers;
  std::vector<model::Json> deletions;  // failed Pods, with why (they are unlisted children too)
  std::vector<KindEvent> events;
};

class ClusterPass {
 public:
  ClusterPass(const ClusterSpec& spec, const Observed& observed, Context& context);
  ReconcileResult run();

 private:
  void reconcile_running();
  void finalize();
  // status.walArchive: the Backup archived to and the primary's archiver (its last report).
  model::Json wal_archive_status() const;
  void final_store_backup(const ObjectStore& store, const std::string& primary, const std::string& job_name);

  // Each step returns true when it took this pass's step (later steps wait).
  bool bootstrap();
  bool recover();
  bool recovery_job_step(const Instance& first);
  bool major_upgrade();
  bool upgrade_job_step();
  void keep_last_upgrade_job();
  bool manage_primary();  // false while the primary is being set up, moved or restarted
  bool recreate_failed_pods();
  bool scale_down();
  bool wait_for_instances();
  bool scale_up();
  bool rolling_update();
  bool supervised_primary_update();
  void update_primary(const std::string& why);
  bool promote_request();
  // opctl cluster restart CLUSTER INSTANCE: that instance's Pod recreated once (rolling_update.cpp).
  bool restart_instance_request();

  // opctl.io/hibernation and opctl.io/fenced-instances (hibernation.cpp).
  void read_stop_annotations();
  // Hibernating: the replicas' Pods go, then the primary's; true while hibernating or hibernated.
  bool hibernate();
  // Woken: the primary's Pod first, the replicas' once it serves; true until it does.
  bool wake_up();
  // The Cluster's primary is fenced: no failover, no switchover until it is unfenced.
  bool primary_fenced();
  // Every step is done: Healthy, or Fenced when an instance is.
  void report_settled();

  // Failed Pods: what is deleted and why (failed_pods.cpp).
  void record_failed_pods();
  // status.configuration: whether spec.postgresql reached every instance, and how
  // (configuration_rollout.cpp).
  void record_configuration();
  // status.managedRolesStatus and managedDatabasesStatus from the primary's report (managed_status.cpp).
  void record_managed();
  // Instances whose image cannot be pulled: the phase reason says how to make it exist (image_pulls.cpp).
  void report_image_pulls();
  // The CA, server and client certificates: kept, issued or renewed (cluster_certificates.hpp).
  void issue_certificates();

  // Primary changes.
  void adopt_primary_if_unknown();
  // The instances moved the primary Lease on their own: follow, and say so.
  void record_lease_takeover();
  void continue_switchover();
  bool continue_restart();
  void start_switchover(const std::string& to, const std::string& why);
  void restart_primary(const std::string& why);
  void set_target(const std::string& instance);
  void set_current(const std::string& instance);

  // Helpers.
  std::string effective_image() const;
  PodTemplate desired_template() const;
  std::vector<ReplicaReport> replica_reports(const std::string& except) const;
  std::optional<std::string> pending_promote_request() const;
  // The Backup of this name, with a target volume; nullptr, and why in `problem`, otherwise.
  struct BackupProblem {
    std::string reason;
    std::string message;
  };
  const model::Json* backup_for(const std::string& name, const std::string& purpose,
                                BackupProblem& problem) const;
  // spec.walArchive's directory and volume; nullopt without one, or when its Backup is unusable (why in
  // `problem`).
  std::optional<WalArchive> wal_archive(BackupProblem& problem) const;
  void progress(std::string phase, std::string reason, std::string message);
  void degrade(std::string reason, std::string message);
  // The pass cannot go on: the phase it is stuck in, Degraded with this reason and message.
  void block(std::string phase, std::string reason, std::string message);
  void requeue(std::chrono::seconds after);

  std::vector<model::Json> children() const;
  std::vector<Condition> conditions() const;
  // Which instances are fenced, for the Fenced condition; empty when none.
  std::string fenced_message() const;
  // The instances' opctl.io/instance-error annotations, "instance: error" joined by "; ".
  std::string instance_errors() const;
  // A Warning Event when that message is new (differs from the live InstanceErrors condition's).
  void tell_instance_errors();
  // A Warning Event when spec.monitoring names a ConfigMap or key that is not there (a new message).
  void tell_missing_custom_queries();
  model::Json instance_states() const;

  FencedInstances fenced_;    // the readable value of opctl.io/fenced-instances
  TlsSecrets tls_;            // this pass's TLS Secrets (issue_certificates)
  bool hibernation_ = false;  // opctl.io/hibernation: "on"

  const ClusterSpec& spec_;
  const Observed& observed_;
  Context& context_;
  TimePoint now_;
  ClusterView view_;
  ClusterStatus status_;
  Plan plan_;
};

}  // namespace opctl::kinds::cluster
