// A changed Pod spec (image within the same major version, resources,
// scheduling), or PostgreSQL parameters that need a restart (the instances
// report pg_settings.pending_restart after their reload), roll through the
// instances one per pass: the replicas first, highest serial
// first, each waiting until it is Ready again; then the primary, by switchover
// to the most advanced updated replica (primaryUpdateMethod: switchover) or by
// a restart in place (restart). The primary is never restarted while a Ready
// updated replica could take over by switchover, unless `restart` was asked
// for. With primaryUpdateStrategy: supervised the pass stops before the primary
// until `opctl promote CLUSTER INSTANCE` (the opctl.io/promote annotation) or
// the spec says go.
#include <fmt/format.h>

#include <algorithm>

#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/cluster_pass.hpp"

namespace opctl::kinds::cluster {
namespace {

// "db-2@20261129T160000Z" -> "db-2": the nonce lets the same instance be asked for twice.
std::string requested_instance(const std::string& request) {
  return request.substr(0, request.find('@'));
}

// Why `instance` must be recreated; empty when it is up to date.
std::string outdated(const Instance& instance, const std::string& hash) {
  if (instance.pod_spec_hash() != hash) return "the new spec";
  if (std::string parameters = instance.pending_restart(); !parameters.empty())
    return "a restart of PostgreSQL for " + parameters;
  return "";
}

}  // namespace

bool ClusterPass::rolling_update() {
  std::string hash = desired_template().hash;
  // Lowering max_connections (and the like) goes the other way round: a standby may not run with less than
  // its primary, so the primary's manager restarts PostgreSQL in place first, holding the Lease (a
  // switchover or a new Pod would hand the primary to a replica with the higher value). The replicas wait.
  if (const Instance* primary = view_.find(status_.target_primary);
      primary != nullptr && !primary->pending_decrease().empty()) {
    progress("RollingUpdate", "RestartingPrimary",
             fmt::format("lowering {}: the primary {} restarts PostgreSQL in place before its replicas",
                         primary->pending_decrease(), primary->name));
    requeue(std::chrono::seconds(2));
    return true;
  }
  for (auto it = view_.instances.rbegin(); it != view_.instances.rend(); ++it) {
    const Instance& replica = it->second;
    if (replica.name == status_.target_primary) continue;
    std::string why = outdated(replica, hash);
    if (why.empty()) continue;
    plan_.stop.insert(replica.serial);
    progress("RollingUpdate", "UpdatingReplica",
             fmt::format("recreating the replica {} for {}", replica.name, why));
    requeue(std::chrono::seconds(5));
    return true;
  }
  const Instance* primary = view_.find(status_.target_primary);
  if (primary == nullptr) return false;
  std::string why = outdated(*primary, hash);
  if (why.empty()) return false;
  if (spec_.primary_update_strategy == PrimaryUpdateStrategy::supervised) return supervised_primary_update();
  update_primary(why);
  return true;
}

bool ClusterPass::supervised_primary_update() {
  const std::string primary = status_.target_primary;
  std::string ignored;
  if (auto request = pending_promote_request()) {
    status_.last_promote_request = *request;
    std::string instance = requested_instance(*request);
    const Instance* candidate = view_.find(instance);
    if (instance == primary) {
      restart_primary("asked for by opctl promote");
      return true;
    }
    if (candidate != nullptr && candidate->ready() && outdated(*candidate, desired_template().hash).empty()) {
      start_switchover(instance, "asked for by opctl promote");
      return true;
    }
    ignored = fmt::format(" (opctl promote {} was ignored: not an updated Ready replica)", instance);
  }
  progress(
      "WaitingForUser", "WaitingForUser",
      fmt::format("every replica runs the new spec; the primary {} waits for `opctl promote {} INSTANCE` "
                  "(primaryUpdateStrategy: supervised){}",
                  primary, spec_.name, ignored));
  return true;
}

void ClusterPass::update_primary(const std::string& why) {
  if (spec_.primary_update_method == PrimaryUpdateMethod::restart) {
    restart_primary(why + "; primaryUpdateMethod: restart");
    return;
  }
  auto replicas = replica_reports(status_.target_primary);
  if (replicas.empty()) {
    restart_primary(why + "; there is no replica to switch over to");
    return;
  }
  Election election = elect_primary(replicas);
  if (election.winner) {
    start_switchover(*election.winner, "the primary waits for " + why + "; " + election.message);
    return;
  }
  progress("RollingUpdate", "WaitingForReplica",
           fmt::format("the primary {} waits for an updated replica to switch over to: {}",
                       status_.target_primary, election.message));
  requeue(std::chrono::seconds(10));
}

bool ClusterPass::restart_instance_request() {
  std::string request = annotation_of(observed_.parent, k_restart_instance_annotation);
  if (request.empty() || request == status_.last_restart_request) return false;
  status_.last_restart_request = request;
  std::string name = requested_instance(request);
  const Instance* instance = view_.find(name);
  if (instance == nullptr || !instance->has_live_pod()) {
    degrade("RestartRequestIgnored", fmt::format("opctl cluster restart {} {}: not a running instance of {}",
                                                 spec_.name, name, spec_.name));
    return false;
  }
  if (name == status_.target_primary) {
    restart_primary("asked for by opctl cluster restart");
    return true;
  }
  plan_.stop.insert(instance->serial);
  progress("RestartingInstance", "RestartingInstance",
           fmt::format("recreating the replica {}, asked for by opctl cluster restart", name));
  requeue(std::chrono::seconds(5));
  return true;
}

bool ClusterPass::promote_request() {
  auto request = pending_promote_request();
  if (!request) return false;
  status_.last_promote_request = *request;
  std::string instance = requested_instance(*request);
  if (instance == status_.target_primary) return false;
  const Instance* candidate = view_.find(instance);
  if (candidate == nullptr || !candidate->ready()) {
    degrade("PromoteRequestIgnored",
            fmt::format("opctl promote {}: not a Ready instance of {}; {} stays the primary", instance,
                        spec_.name, status_.target_primary));
    return false;
  }
  start_switchover(instance, "asked for by opctl promote");
  return true;
}

}  // namespace opctl::kinds::cluster
