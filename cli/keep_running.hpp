// When `opctl reconcile` cannot load its set (git cannot be fetched, a
// manifest is invalid or fails validation), the custom resources of the set
// that exist keep running: under the set's Lease, each one's reconciler works
// from its live spec and repairs what it owns, as an operator keeps
// reconciling while a bad commit sits in git. Nothing of the set is applied,
// nothing is pruned, and the exit code stays the failure's.
#pragma once

#include <string>
#include <vector>

#include "apply/pass_report.hpp"
#include "cluster_connection.hpp"
#include "common_options.hpp"
#include "kinds/kind_registry.hpp"
#include "kube/api_client.hpp"
#include "model/object.hpp"
#include "plan/applyset.hpp"

namespace opctl::cli {

// Why the set's custom resources cannot be kept running after its load
// failed, or "" when they can: not with --no-keep-running, nor for an unnamed
// set (its members may come from other directories, as with --prune), nor
// when the set's name and namespace may come from an opctl.yaml in the
// source that was never read.
std::string why_not_keep_running(const CommonOptions& options);

// "kept 1 Cluster, 2 Backups running from their live spec": the members the
// runner recorded, by kind; those it could not reconcile are counted apart.
// "" when it recorded none (no member exists, or all were gone).
std::string kept_running_line(const std::vector<model::Object>& members, const apply::PassReport& report);

// The set's live custom resources: of the group-kinds its ApplySet parent
// records, those `registry` reconciles, listed in the namespaces it records
// by the part-of label (one LIST each, as prune lists, which opctl install's
// RBAC allows; a LIST across namespaces it does not). Empty when the parent
// does not exist. Throws the API's errors.
std::vector<model::Object> set_custom_resources(kube::ApiClient& client, const plan::ApplySetParent& parent,
                                                const kinds::KindRegistry& registry);

struct KeepRunningOptions {
  bool text = true;  // -o text: one line per outcome
  // The connection the failed load had opened; null: connect now.
  ClusterConnection* connection = nullptr;
};

// Lists the set's live custom resources (the custom kinds of its ApplySet
// inventory, in its namespaces, by the part-of label) and, when there are
// any, takes the set's Lease and runs their reconcilers once. Never throws: what stops it is
// printed as a warning, since the load's error is the one that counts.
void keep_running(const CommonOptions& options, const KeepRunningOptions& keep);

}  // namespace opctl::cli
